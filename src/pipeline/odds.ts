import { KEYS, type OddsRecord } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';
import { readParquet } from '../storage/index.js';

function numOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * `raw-data/odds.parquet` as a map by match id. An absent file is an empty map: matches without odds
 * get their market features flagged missing, never invented.
 */
export async function readOddsMap(store: ObjectStore): Promise<Map<number, OddsRecord>> {
  const obj = await store.get(KEYS.odds.bucket, KEYS.odds.key);
  const map = new Map<number, OddsRecord>();
  if (!obj) return map;
  for (const r of await readParquet(obj.body)) {
    const id = Number(r.match_id);
    if (!Number.isSafeInteger(id)) continue;
    map.set(id, {
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
  return map;
}
