import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { KEYS, type OddsRecord } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { Registry } from '../registry/index.js';
import { type ObjectStore, type ParquetRow, readParquet } from '../storage/index.js';

/** What the analysis stages need; the pipeline passes its own deps. */
export interface AnalyticsDeps {
  config: Config;
  db: Database;
  store: ObjectStore;
  registry: Registry;
  log: Logger;
}

export function numOrNull(v: unknown): number | null {
  if (typeof v === 'bigint') return Number(v);
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function asDate(v: unknown): Date | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v;
  if (typeof v === 'number' || typeof v === 'string') {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/** A parquet artifact's rows, or null when the object does not exist. */
export async function readParquetObject(
  store: ObjectStore,
  ref: { bucket: (typeof KEYS)[keyof typeof KEYS]['bucket']; key: string },
): Promise<ParquetRow[] | null> {
  const obj = await store.get(ref.bucket, ref.key);
  return obj ? readParquet(obj.body) : null;
}

/** `raw-data/odds.parquet` as records; empty when the file does not exist (odds are never invented). */
export async function readOdds(store: ObjectStore): Promise<OddsRecord[]> {
  const rows = (await readParquetObject(store, KEYS.odds)) ?? [];
  const out: OddsRecord[] = [];
  for (const r of rows) {
    const id = numOrNull(r.match_id);
    if (id === null) continue;
    out.push({
      match_id: id,
      odd_home: numOrNull(r.odd_home),
      odd_draw: numOrNull(r.odd_draw),
      odd_away: numOrNull(r.odd_away),
      open_home: numOrNull(r.open_home),
      open_draw: numOrNull(r.open_draw),
      open_away: numOrNull(r.open_away),
      close_home: numOrNull(r.close_home),
      close_draw: numOrNull(r.close_draw),
      close_away: numOrNull(r.close_away),
      source: typeof r.source === 'string' ? r.source : '',
    });
  }
  return out;
}

/** Puts a text artifact with its content type. */
export async function putText(
  store: ObjectStore,
  bucket: 'reports',
  key: string,
  body: string,
  contentType: string,
): Promise<void> {
  await store.put(bucket, key, Buffer.from(body, 'utf8'), { contentType });
}
