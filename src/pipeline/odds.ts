import type { OddsRecord } from '../domain/index.js';
import { readOddsFile } from '../ingest/index.js';
import type { ObjectStore } from '../storage/index.js';

/**
 * `raw-data/odds.parquet` as a map by match id. An absent file is an empty map: matches without odds
 * get their market features flagged missing, never invented.
 */
export async function readOddsMap(store: ObjectStore): Promise<Map<number, OddsRecord>> {
  return new Map((await readOddsFile(store)).map((r) => [r.match_id, r]));
}
