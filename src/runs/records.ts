import type { Database, Queryable } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import { isPipelineRunId } from './keys.js';
import type { PublishedRun, RunEvent, RunRecord, RunStatus } from './types.js';

const RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['running', 'draft', 'failed', 'rejected', 'complete']);

/** A record as stored; a row whose JSON is not a record is reported, never trusted. */
function toRecord(row: { run_id: string; record: unknown }): RunRecord {
  const r = row.record as RunRecord | null;
  if (
    !r ||
    typeof r !== 'object' ||
    r.run_id !== row.run_id ||
    !RUN_STATUSES.has(r.status) ||
    typeof r.artifacts !== 'object' ||
    r.artifacts === null
  ) {
    throw new MatchcastError('MC_ERR_INTERNAL', `run record ${row.run_id} is malformed`);
  }
  return r;
}

export async function readPublished(db: Queryable): Promise<PublishedRun | null> {
  const rows = await db.query<{ run_id: string; seq: number; published_at: string; record: unknown }>(
    `SELECT p.run_id, p.seq, p.published_at, r.record FROM published_run p
       JOIN pipeline_runs r ON r.run_id = p.run_id`,
  );
  const row = rows[0];
  if (!row) return null;
  const record = toRecord(row);
  return {
    run_id: row.run_id,
    seq: Number(row.seq),
    published_at: row.published_at,
    artifacts: record.artifacts,
    features_fingerprint: record.features_fingerprint,
  };
}

/** The pointer's sequence number (null when no run was ever published): what pollers compare. */
export async function publishedSeq(db: Queryable): Promise<number | null> {
  const rows = await db.query<{ seq: number }>('SELECT seq FROM published_run');
  return rows[0] ? Number(rows[0].seq) : null;
}

export async function readRunRecord(db: Queryable, runId: string): Promise<RunRecord | null> {
  if (!isPipelineRunId(runId)) return null;
  const rows = await db.query<{ run_id: string; record: unknown }>(
    'SELECT run_id, record FROM pipeline_runs WHERE run_id = $1',
    [runId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Inserts or replaces a run record (only its own writer does, or an operator command). */
export async function writeRunRecord(db: Queryable, record: RunRecord): Promise<void> {
  await db.query(
    `INSERT INTO pipeline_runs (run_id, kind, status, parent_run_id, created_at, record)
       VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (run_id) DO UPDATE SET kind = EXCLUDED.kind, status = EXCLUDED.status,
       parent_run_id = EXCLUDED.parent_run_id, record = EXCLUDED.record`,
    [
      record.run_id,
      record.kind,
      record.status,
      record.parent_run_id,
      record.created_at,
      JSON.stringify(record),
    ],
  );
}

/** Every run record, oldest first (by `created_at` in milliseconds, then id). */
export async function listRuns(db: Queryable): Promise<RunRecord[]> {
  const rows = await db.query<{ run_id: string; record: unknown }>(
    'SELECT run_id, record FROM pipeline_runs ORDER BY created_at, run_id',
  );
  const out: RunRecord[] = [];
  for (const row of rows) {
    try {
      out.push(toRecord(row));
    } catch {
      // A malformed row is skipped by listings; reading it by id reports it.
    }
  }
  return out;
}

export async function readRunHistory(db: Queryable): Promise<RunEvent[]> {
  const rows = await db.query<Omit<RunEvent, 'reason'> & { reason: string | null }>(
    'SELECT seq, at, actor, action, from_run, to_run, reason, forced FROM published_run_history ORDER BY seq',
  );
  return rows.map(({ reason, ...e }) => ({
    ...e,
    seq: Number(e.seq),
    ...(reason !== null ? { reason } : {}),
  }));
}

export async function appendRunEvent(db: Queryable, e: RunEvent): Promise<void> {
  await db.query(
    `INSERT INTO published_run_history (seq, at, actor, action, from_run, to_run, reason, forced)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.seq, e.at, e.actor, e.action, e.from_run, e.to_run, e.reason ?? null, e.forced === true],
  );
}

/** The run that was published at instant `at` (null when none was), from the history. */
export async function publishedRunAt(db: Queryable, at: Date): Promise<string | null> {
  let found: string | null = null;
  for (const e of await readRunHistory(db)) {
    if (new Date(e.at).getTime() <= at.getTime()) found = e.to_run;
  }
  return found;
}

interface MovePointerOptions {
  actor: string;
  action: RunEvent['action'];
  reason?: string;
  forced: boolean;
  /** Publish only if the pointer's sequence number is still this (null: none published). Default any. */
  expectSeq?: number | null;
}

/**
 * THE commit point of a publication: pointer, history event and the record's publication time in one
 * transaction, guarded by the expected seq (MC_ERR_CONFLICT when another publication won; nothing changed).
 */
export async function movePointer(
  db: Database,
  record: RunRecord,
  options: MovePointerOptions,
): Promise<RunEvent> {
  const at = new Date().toISOString();
  return db.transaction(async (tx) => {
    const current = (
      await tx.query<{ run_id: string; seq: number }>('SELECT run_id, seq FROM published_run FOR UPDATE')
    )[0];
    const currentSeq = current ? Number(current.seq) : null;
    if (options.expectSeq !== undefined && currentSeq !== options.expectSeq) {
      throw new MatchcastError(
        'MC_ERR_CONFLICT',
        `the published run changed while run ${record.run_id} was being prepared (now ${current?.run_id ?? 'none'}); rerun`,
      );
    }
    const event: RunEvent = {
      seq: (currentSeq ?? 0) + 1,
      at,
      actor: options.actor,
      action: options.action,
      from_run: current?.run_id ?? null,
      to_run: record.run_id,
      forced: options.forced,
    };
    if (options.reason) event.reason = options.reason;
    const next: RunRecord = { ...record, published_at: [...record.published_at, at], updated_at: at };
    await writeRunRecord(tx, next);
    const moved = current
      ? await tx.query(
          'UPDATE published_run SET run_id = $1, seq = $2, published_at = $3 WHERE seq = $4 RETURNING seq',
          [record.run_id, event.seq, at, currentSeq],
        )
      : await tx.query(
          `INSERT INTO published_run (singleton, run_id, seq, published_at) VALUES (true, $1, $2, $3)
             ON CONFLICT (singleton) DO NOTHING RETURNING seq`,
          [record.run_id, event.seq, at],
        );
    if (moved.length !== 1) {
      throw new MatchcastError('MC_ERR_CONFLICT', `another publication moved the pointer first; rerun`);
    }
    await appendRunEvent(tx, event);
    record.published_at = next.published_at;
    record.updated_at = at;
    return event;
  });
}
