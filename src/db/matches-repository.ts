import type { Match, MatchKey, MatchStatus } from '../domain/index.js';
import type { Livescore } from '../schemas/index.js';
import type { Database, Queryable, QueryOptions } from './database.js';

/** A match to upsert: everything but the ids, which the database assigns and keeps. */
export type MatchUpsert = Omit<Match, 'id' | 'regionId'>;

/** What {@link MatchesRepository.upsertMatches} did. */
export interface UpsertResult {
  inserted: number;
  /** Existing matches whose season, status or score changed. */
  updated: number;
  /** Existing matches that were already identical (their `updated_at` does not move). */
  unchanged: number;
  /** The match id of every input row, in input order (duplicates of a key share one id). */
  ids: number[];
  /** Ids of the matches inserted or updated (what changed: e.g. to re-predict them). */
  changed: number[];
}

/** Filter of `/livescores/`: a UTC calendar year, optionally one month of it. */
export interface LivescoresQuery {
  year: number;
  /** 1..12; absent = the whole year. */
  month?: number;
  limit: number;
  offset: number;
}

interface MatchDbRow {
  id: number;
  region_id: number;
  region_name: string;
  tournament_name: string;
  season: string;
  start_time_utc: Date;
  home_team_name: string;
  away_team_name: string;
  status: MatchStatus;
  home_score: number | null;
  away_score: number | null;
}

const MATCH_COLUMNS = `id, region_id, region_name, tournament_name, season, start_time_utc,
  home_team_name, away_team_name, status, home_score, away_score`;

// unnest() batches; DO UPDATE's WHERE skips identical rows and, unless $11 (force), finished ones (in the
// statement, against concurrent writers). The outer SELECT gives unchanged rows' ids; `xmax = 0`: inserted.
const UPSERT_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[],
                       $8::text[], $9::int[], $10::int[])
    WITH ORDINALITY AS u(region_id, region_name, tournament_name, season, start_time_utc, home_team_name,
                         away_team_name, status, home_score, away_score, ord)
), written AS (
  INSERT INTO matches AS m (region_id, region_name, tournament_name, season, start_time_utc, home_team_name,
                            away_team_name, status, home_score, away_score)
  SELECT region_id, region_name, tournament_name, season, start_time_utc, home_team_name, away_team_name,
         status, home_score, away_score
  FROM input ORDER BY ord
  ON CONFLICT (region_name, tournament_name, start_time_utc, home_team_name, away_team_name) DO UPDATE SET
    region_id = excluded.region_id, season = excluded.season, status = excluded.status,
    home_score = excluded.home_score, away_score = excluded.away_score, updated_at = now()
  WHERE (m.status <> 'finished' OR $11::boolean)
    AND (m.region_id, m.season, m.status, m.home_score, m.away_score)
        IS DISTINCT FROM (excluded.region_id, excluded.season, excluded.status, excluded.home_score, excluded.away_score)
  RETURNING m.id, m.region_name, m.tournament_name, m.start_time_utc, m.home_team_name, m.away_team_name,
            (m.xmax = 0) AS inserted
)
SELECT i.ord, coalesce(w.id, old.id) AS id, w.inserted
FROM input i
LEFT JOIN written w USING (region_name, tournament_name, start_time_utc, home_team_name, away_team_name)
LEFT JOIN matches old USING (region_name, tournament_name, start_time_utc, home_team_name, away_team_name)
ORDER BY i.ord`;

function naturalKey(m: MatchUpsert): string {
  const { regionName, tournamentName, startTimeUtc, homeTeamName, awayTeamName } = m;
  return [regionName, tournamentName, startTimeUtc.getTime(), homeTeamName, awayTeamName].join('\u0000');
}

function toMatch(r: MatchDbRow, intern: (s: string) => string): Match {
  return {
    id: r.id,
    regionId: r.region_id,
    regionName: intern(r.region_name),
    tournamentName: intern(r.tournament_name),
    season: intern(r.season),
    startTimeUtc: new Date(r.start_time_utc),
    homeTeamName: intern(r.home_team_name),
    awayTeamName: intern(r.away_team_name),
    status: intern(r.status) as MatchStatus,
    homeScore: r.home_score,
    awayScore: r.away_score,
  };
}

/** One copy of each distinct string: the driver gives every row its own copy of names that repeat. */
function interner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    if (!seen.has(s)) seen.set(s, s);
    return seen.get(s)!;
  };
}

function isDatabase(db: Queryable): db is Database {
  return typeof (db as Partial<Database>).transaction === 'function';
}

/** Reads and writes the `matches` table (and the `regions` it references). */
export class MatchesRepository {
  /** `db`: a Database (an upsert is one transaction) or a running `tx`. */
  constructor(
    private readonly db: Queryable,
    private readonly batchSize = 2000,
  ) {}

  /**
   * Upserts on the natural key, so a match keeps its id across re-ingests (idempotent; the last row of a key
   * wins). Only `force` lets a row change or erase the result of a FINISHED match.
   */
  async upsertMatches(
    rows: readonly MatchUpsert[],
    options: { force?: boolean } = {},
  ): Promise<UpsertResult> {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, ids: [], changed: [] };
    if (rows.length === 0) return result;
    const db = this.db;
    if (isDatabase(db))
      return db.transaction((tx) => new MatchesRepository(tx, this.batchSize).upsertMatches(rows, options));
    const force = options.force === true;

    const slotOf = new Map<string, number>();
    const unique: MatchUpsert[] = [];
    const slots = rows.map((row) => {
      const key = naturalKey(row);
      if (!slotOf.has(key)) slotOf.set(key, slotOf.size);
      const slot = slotOf.get(key)!;
      unique[slot] = row;
      return slot;
    });

    const regionIds = await this.ensureRegions(unique.map((r) => r.regionName));
    const uniqueIds: number[] = new Array(unique.length);
    for (let start = 0; start < unique.length; start += this.batchSize) {
      const batch = unique.slice(start, start + this.batchSize);
      const out = await db.query<{ ord: number; id: number | null; inserted: boolean | null }>(UPSERT_SQL, [
        batch.map((r) => regionIds.get(r.regionName)),
        batch.map((r) => r.regionName),
        batch.map((r) => r.tournamentName),
        batch.map((r) => r.season),
        batch.map((r) => r.startTimeUtc.toISOString()),
        batch.map((r) => r.homeTeamName),
        batch.map((r) => r.awayTeamName),
        batch.map((r) => r.status),
        batch.map((r) => r.homeScore),
        batch.map((r) => r.awayScore),
        force,
      ]);
      const missing: number[] = [];
      for (const r of out) {
        const slot = start + Number(r.ord) - 1;
        if (r.id === null) missing.push(slot);
        else uniqueIds[slot] = Number(r.id);
        if (r.inserted === true) result.inserted++;
        else if (r.inserted === false) result.updated++;
        else result.unchanged++;
        if (r.inserted !== null && r.id !== null) result.changed.push(Number(r.id));
      }
      // An identical row that a concurrent writer committed after our snapshot began is in neither
      // RETURNING nor the snapshot: look its id up now.
      const found = await this.byKeys(missing.map((slot) => unique[slot]!));
      for (const [i, m] of found) uniqueIds[missing[i]!] = m.id;
    }
    result.ids = slots.map((slot) => uniqueIds[slot]);
    return result;
  }

  /** Matches by id (kick-off included), for odds-only rows that name a match by id. */
  async byIds(ids: readonly number[]): Promise<Map<number, Match>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<MatchDbRow>(
      `SELECT ${MATCH_COLUMNS} FROM matches WHERE id = ANY($1::int[])`,
      [[...new Set(ids)]],
    );
    const intern = interner();
    return new Map(rows.map((r) => [Number(r.id), toMatch(r, intern)]));
  }

  /**
   * Matches by natural key, as a map from input index to match (odds-only rows that name a match by key);
   * `finishedOnly`: the FINISHED ones, whose results ingest checks a file's rows against.
   */
  async byKeys(keys: readonly MatchKey[], finishedOnly = false): Promise<Map<number, Match>> {
    const out = new Map<number, Match>();
    const intern = interner();
    for (let start = 0; start < keys.length; start += this.batchSize) {
      const batch = keys.slice(start, start + this.batchSize);
      const rows = await this.db.query<MatchDbRow & { ord: number }>(
        `SELECT ${MATCH_COLUMNS.replace(/(^|,\s*)/g, '$1m.')}, k.ord
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[])
           WITH ORDINALITY AS k(region_name, tournament_name, start_time_utc, home_team_name, away_team_name, ord)
         JOIN matches m USING (region_name, tournament_name, start_time_utc, home_team_name, away_team_name)${
           finishedOnly ? "\n         WHERE m.status = 'finished'" : ''
         }`,
        [
          batch.map((k) => k.regionName),
          batch.map((k) => k.tournamentName),
          batch.map((k) => k.startTimeUtc.toISOString()),
          batch.map((k) => k.homeTeamName),
          batch.map((k) => k.awayTeamName),
        ],
      );
      for (const r of rows) out.set(start + Number(r.ord) - 1, toMatch(r, intern));
    }
    return out;
  }

  private async ensureRegions(names: readonly string[]): Promise<Map<string, number>> {
    const distinct = [...new Set(names)];
    await this.db.query(
      'INSERT INTO regions (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [distinct],
    );
    const rows = await this.db.query<{ id: number; name: string }>(
      'SELECT id, name FROM regions WHERE name = ANY($1::text[])',
      [distinct],
    );
    return new Map(rows.map((r) => [r.name, Number(r.id)]));
  }

  /** Matches of a UTC year (and month), newest first, paged; requests bound it by `config.dbTimeoutMs`. */
  async listLivescores(q: LivescoresQuery, options?: QueryOptions): Promise<Livescore[]> {
    // Date.UTC carries month 12 into January of the next year.
    const from = new Date(Date.UTC(q.year, (q.month ?? 1) - 1, 1));
    const to = new Date(Date.UTC(q.year, q.month ?? 12, 1));
    const rows = await this.db.query<MatchDbRow>(
      `SELECT ${MATCH_COLUMNS} FROM matches
       WHERE start_time_utc >= $1 AND start_time_utc < $2
       ORDER BY start_time_utc DESC, id DESC
       LIMIT $3 OFFSET $4`,
      [from.toISOString(), to.toISOString(), q.limit, q.offset],
      options,
    );
    // The response schema orders the fields.
    return rows.map((r) => {
      const m = toMatch(r, (s) => s);
      return { ...m, startTimeUtc: m.startTimeUtc.toISOString() };
    });
  }

  async allMatches(): Promise<Match[]> {
    const rows = await this.db.query<MatchDbRow>(
      `SELECT ${MATCH_COLUMNS} FROM matches ORDER BY start_time_utc, id`,
    );
    const intern = interner();
    return rows.map((r) => toMatch(r, intern));
  }

  /** The regions of the matches `ids` (unknown ids are ignored). */
  async regionsOf(ids: readonly number[]): Promise<number[]> {
    const rows = await this.db.query<{ region_id: number }>(
      'SELECT DISTINCT region_id FROM matches WHERE id = ANY($1::bigint[])',
      [ids],
    );
    return rows.map((r) => Number(r.region_id));
  }

  /**
   * The matches of `regionIds` written since the mark `since` (null: all), each region's match count, and
   * the next mark: the snapshot's xmin, so a row committed after a call comes in the next (maybe twice).
   */
  async regionMatchesSince(
    regionIds: readonly number[],
    since: string | null,
  ): Promise<{ matches: Match[]; counts: Map<number, number>; mark: string }> {
    const [snap] = await this.db.query<{ x: string }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x',
    );
    const rows = await this.db.query<MatchDbRow>(
      since === null
        ? `SELECT ${MATCH_COLUMNS} FROM matches WHERE region_id = ANY($1::int[])`
        : `SELECT ${MATCH_COLUMNS} FROM matches WHERE region_id = ANY($1::int[]) AND xmin::text::bigint >= $2::bigint`,
      since === null ? [regionIds] : [regionIds, since],
    );
    const counts = await this.db.query<{ region_id: number; n: number }>(
      'SELECT region_id, count(*)::int AS n FROM matches WHERE region_id = ANY($1::int[]) GROUP BY region_id',
      [regionIds],
    );
    const intern = interner();
    return {
      matches: rows.map((r) => toMatch(r, intern)),
      counts: new Map(counts.map((c) => [Number(c.region_id), Number(c.n)])),
      mark: String(snap?.x ?? '0'),
    };
  }

  async count(): Promise<number> {
    const rows = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM matches');
    return Number(rows[0]?.n ?? 0);
  }
}
