import { isMatchcastError, KEYS, type OddsRecord } from '../domain/index.js';
import { type ObjectStore, type ParquetColumn, readParquet, writeParquet } from '../storage/index.js';
import type { OddsInput } from './types.js';

/** Columns of `raw-data/odds.parquet` (TEAM.md contract). */
export const ODDS_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'odd_home', type: 'double' },
  { name: 'odd_draw', type: 'double' },
  { name: 'odd_away', type: 'double' },
  { name: 'open_home', type: 'double' },
  { name: 'open_draw', type: 'double' },
  { name: 'open_away', type: 'double' },
  { name: 'close_home', type: 'double' },
  { name: 'close_draw', type: 'double' },
  { name: 'close_away', type: 'double' },
  { name: 'source', type: 'string' },
];

const complete = (h: number | null, d: number | null, a: number | null) =>
  h !== null && d !== null && a !== null;

/**
 * The odds record of a match. `odd_*` are the prices a user would have seen last before kick-off:
 * the closing triple when it is complete, else the opening triple when complete, else side by side
 * closing-or-opening. A side no source knows stays null: odds are never invented.
 */
export function toOddsRecord(matchId: number, o: OddsInput): OddsRecord {
  const useClose = complete(o.close_home, o.close_draw, o.close_away);
  const useOpen = !useClose && complete(o.open_home, o.open_draw, o.open_away);
  const pick = (close: number | null, open: number | null) =>
    useClose ? close : useOpen ? open : (close ?? open);
  return {
    match_id: matchId,
    odd_home: pick(o.close_home, o.open_home),
    odd_draw: pick(o.close_draw, o.open_draw),
    odd_away: pick(o.close_away, o.open_away),
    open_home: o.open_home,
    open_draw: o.open_draw,
    open_away: o.open_away,
    close_home: o.close_home,
    close_draw: o.close_draw,
    close_away: o.close_away,
    source: o.source,
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Decodes `raw-data/odds.parquet` rows; rows without a usable match_id are dropped. */
export async function decodeOdds(buf: Buffer): Promise<OddsRecord[]> {
  const out: OddsRecord[] = [];
  for (const r of await readParquet(buf)) {
    const id = Number(r.match_id);
    if (!Number.isSafeInteger(id)) continue;
    out.push({
      match_id: id,
      odd_home: num(r.odd_home),
      odd_draw: num(r.odd_draw),
      odd_away: num(r.odd_away),
      open_home: num(r.open_home),
      open_draw: num(r.open_draw),
      open_away: num(r.open_away),
      close_home: num(r.close_home),
      close_draw: num(r.close_draw),
      close_away: num(r.close_away),
      source: typeof r.source === 'string' ? r.source : '',
    });
  }
  return out;
}

/** Reads `raw-data/odds.parquet` (empty when absent). */
export async function readOddsFile(store: ObjectStore): Promise<OddsRecord[]> {
  const obj = await store.get(KEYS.odds.bucket, KEYS.odds.key);
  return obj ? decodeOdds(obj.body) : [];
}

function sameRecord(a: OddsRecord, b: OddsRecord): boolean {
  return (Object.keys(a) as (keyof OddsRecord)[]).every((k) => a[k] === b[k]);
}

/** Options of {@link mergeOddsFile}. */
export interface MergeOddsOptions {
  /** Compare-and-swap retries when another writer changed the file meanwhile. Default `5`. */
  retries?: number;
}

/**
 * Merges `records` into `raw-data/odds.parquet` by match_id (a new record replaces the old one of its
 * match; other matches are kept, so a second source does not drop the first) and writes it back with a
 * compare-and-swap on the etag. Nothing is written when the merge changes nothing.
 * @returns rows in the file and whether it was written.
 */
export async function mergeOddsFile(
  store: ObjectStore,
  records: readonly OddsRecord[],
  options: MergeOddsOptions = {},
): Promise<{ rows: number; written: boolean }> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const current = await store.get(KEYS.odds.bucket, KEYS.odds.key);
    const existing = current ? await decodeOdds(current.body) : [];
    const byId = new Map(existing.map((r) => [r.match_id, r]));
    let changed = current === null && records.length > 0;
    for (const r of records) {
      const old = byId.get(r.match_id);
      if (!old || !sameRecord(old, r)) {
        changed = true;
        byId.set(r.match_id, r);
      }
    }
    if (!changed) return { rows: byId.size, written: false };
    const rows = [...byId.values()].sort((a, b) => a.match_id - b.match_id);
    const body = writeParquet(ODDS_COLUMNS, rows as unknown as Record<string, unknown>[]);
    try {
      await store.put(KEYS.odds.bucket, KEYS.odds.key, body, {
        ...(current ? { ifMatch: current.etag } : { ifNoneMatch: '*' as const }),
      });
      return { rows: rows.length, written: true };
    } catch (err) {
      if (isMatchcastError(err, 'MC_ERR_CONFLICT') && attempt < retries) continue;
      throw err;
    }
  }
}
