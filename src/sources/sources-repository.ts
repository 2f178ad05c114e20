import type { Queryable } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import type { SourceRecord, UnmatchedTeam } from './types.js';

/** The columns of a {@link SourceRecord}: both database adapters return numbers, Dates and parsed jsonb. */
const RECORD = `name, url, format, every_ms AS "everyMs", options, created_at AS "createdAt", etag,
  last_modified AS "lastModified", body_bytes AS "bodyBytes", body_sha256 AS "bodySha256", header,
  full_read_next AS "fullReadNext", last_polled_at AS "lastPolledAt", last_success_at AS "lastSuccessAt",
  last_error_code AS "lastErrorCode", last_error_message AS "lastErrorMessage", last_error_at AS "lastErrorAt",
  errors_total AS "errorsTotal", rows_added_total AS "rowsAddedTotal", last_rows_added AS "lastRowsAdded",
  next_poll_at AS "nextPollAt", unmatched`;

export interface PollSuccess {
  etag: string | null;
  lastModified: string | null;
  bodyBytes: number;
  bodySha256: string;
  header: string | null;
  rowsAdded: number;
  unmatched: UnmatchedTeam[];
  /** A coded warning (rows skipped, unknown teams), or null. */
  warning: { code: string; message: string } | null;
}

export class SourcesRepository {
  constructor(private readonly db: Queryable) {}

  async add(s: Pick<SourceRecord, 'name' | 'url' | 'format' | 'everyMs' | 'options'>): Promise<void> {
    const rows = await this.db.query(
      `INSERT INTO sources (name, url, format, every_ms, options) VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (name) DO NOTHING RETURNING name`,
      [s.name, s.url, s.format, s.everyMs, JSON.stringify(s.options)],
    );
    if (rows.length === 0)
      throw new MatchcastError('MC_ERR_CONFLICT', `a source named "${s.name}" exists already`);
  }

  async remove(name: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM sources WHERE name = $1 RETURNING name', [name])).length > 0;
  }

  async list(options: Parameters<Queryable['query']>[2] = {}): Promise<SourceRecord[]> {
    return this.db.query<SourceRecord>(`SELECT ${RECORD} FROM sources ORDER BY name`, [], options);
  }

  async get(name: string): Promise<SourceRecord | null> {
    const [r] = await this.db.query<SourceRecord>(`SELECT ${RECORD} FROM sources WHERE name = $1`, [name]);
    return r ?? null;
  }

  async due(now: Date): Promise<string[]> {
    const rows = await this.db.query<{ name: string }>(
      `SELECT name FROM sources WHERE next_poll_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
       ORDER BY next_poll_at, name`,
      [now],
    );
    return rows.map((r) => r.name);
  }

  /** Takes the poll lease until `until` (one poll of a source at a time); null when another poll holds it. */
  async lease(name: string, now: Date, until: Date): Promise<SourceRecord | null> {
    const [r] = await this.db.query<SourceRecord>(
      `UPDATE sources SET lease_until = $3 WHERE name = $1 AND (lease_until IS NULL OR lease_until < $2)
       RETURNING ${RECORD}`,
      [name, now, until],
    );
    return r ?? null;
  }

  async succeeded(name: string, at: Date, next: Date, s: PollSuccess): Promise<void> {
    await this.db.query(
      `UPDATE sources SET lease_until = NULL, last_polled_at = $2, last_success_at = $2, next_poll_at = $3,
         etag = $4, last_modified = $5, body_bytes = $6, body_sha256 = $7, header = $8, full_read_next = false,
         last_rows_added = $9::int, rows_added_total = rows_added_total + $9::int, unmatched = $10::jsonb,
         last_error_code = COALESCE($11, last_error_code),
         last_error_message = COALESCE($12, last_error_message),
         last_error_at = CASE WHEN $11::text IS NULL THEN last_error_at ELSE $2 END,
         errors_total = errors_total + CASE WHEN $11::text IS NULL THEN 0 ELSE 1 END
       WHERE name = $1`,
      [
        name,
        at,
        next,
        s.etag,
        s.lastModified,
        s.bodyBytes,
        s.bodySha256,
        s.header,
        s.rowsAdded,
        JSON.stringify(s.unmatched),
        s.warning?.code ?? null,
        s.warning?.message ?? null,
      ],
    );
  }

  /** A poll that found nothing new (304, same body). */
  async unchanged(name: string, at: Date, next: Date): Promise<void> {
    await this.db.query(
      `UPDATE sources SET lease_until = NULL, last_polled_at = $2, last_success_at = $2, next_poll_at = $3,
         last_rows_added = 0 WHERE name = $1`,
      [name, at, next],
    );
  }

  /** A failed poll: the error is recorded, the validators of the last good body stay. */
  async failed(name: string, at: Date, next: Date, code: string, message: string): Promise<void> {
    await this.db.query(
      `UPDATE sources SET lease_until = NULL, last_polled_at = $2, next_poll_at = $3, last_error_code = $4,
         last_error_message = $5, last_error_at = $2, errors_total = errors_total + 1, last_rows_added = 0
       WHERE name = $1`,
      [name, at, next, code, message.slice(0, 2000)],
    );
  }

  /** The next poll of every source holding rows back reads the whole body again (a team name was settled). */
  async rereadHeld(): Promise<void> {
    await this.db.query(
      `UPDATE sources SET full_read_next = true, etag = NULL, last_modified = NULL
       WHERE unmatched <> '[]'::jsonb`,
    );
  }
}
