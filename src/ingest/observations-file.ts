import { createHash, randomBytes } from 'node:crypto';
import { type Database, PendingRepredictions, type Queryable } from '../db/index.js';
import { getOrSet, ODDS_MARKETS, ODDS_OBSERVATIONS, type OddsObservation } from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';
import { type DecodedEntry, readDecoded } from './decoded-cache.js';
import { ObservationColumns } from './observation-columns.js';

/** Decodes the observations file; a row that is not a complete observation is dropped. */
export async function decodeObservations(buf: Buffer): Promise<OddsObservation[]> {
  const columns = await ObservationColumns.decode(buf);
  return Array.from({ length: columns.length }, (_, i) => columns.observation(i));
}

/** Where observations are read from: the database names the current file, the store holds it. */
export interface ObservationSource {
  db: Queryable;
  store: ObjectStore;
}

/** Prefix of the merged observation files (each written once, under a new key per merge). */
const SET_PREFIX = 'odds_observations/';
/** Merged files kept besides the current one, for readers that read the previous name. */
const SETS_KEPT = 2;

/** Key of the current observations file: the database's, else the single file of older data folders. */
async function currentKey(db: Queryable): Promise<string> {
  const rows = await db.query<{ key: string }>('SELECT key FROM odds_observation_sets');
  return rows[0]?.key ?? ODDS_OBSERVATIONS.key;
}

/** Every stored odds observation (empty when there is none). */
export async function readOddsObservations(src: ObservationSource): Promise<OddsObservation[]> {
  const obj = await src.store.get(ODDS_OBSERVATIONS.bucket, await currentKey(src.db));
  return obj ? decodeObservations(obj.body) : [];
}

/** Every stored odds observation as columns (empty when there is none): no object per observation. */
export async function readObservationColumns(src: ObservationSource): Promise<ObservationColumns> {
  const obj = await src.store.get(ODDS_OBSERVATIONS.bucket, await currentKey(src.db));
  return obj ? ObservationColumns.decode(obj.body) : new ObservationColumns();
}

/** The observations file decoded: every observation, and the same grouped by match (file order). */
export interface ObservationSet {
  readonly all: readonly OddsObservation[];
  readonly byMatch: ReadonlyMap<number, readonly OddsObservation[]>;
}

const OBSERVATIONS_DECODER = 'observation-set';

function groupByMatch(all: readonly OddsObservation[]): Map<number, OddsObservation[]> {
  const byMatch = new Map<number, OddsObservation[]>();
  for (const o of all) getOrSet(byMatch, o.match_id, () => []).push(o);
  return byMatch;
}

/** `raw-data/odds_observations.parquet` decoded, cached while its etag holds; shared, read-only. */
export async function readObservationSet(
  src: ObservationSource,
): Promise<DecodedEntry<ObservationSet> | null> {
  const key = await currentKey(src.db);
  return readDecoded(src.store, ODDS_OBSERVATIONS.bucket, key, OBSERVATIONS_DECODER, async (body) => {
    const all = await decodeObservations(body);
    return { all, byMatch: groupByMatch(all) };
  });
}

/** What {@link mergeOddsObservations} did. */
interface MergeObservationsResult {
  /** Observations in the file after the merge. */
  rows: number;
  added: number;
  /** Same identity (match, market, source, time), different prices or kind: the new one replaced the old. */
  replaced: number;
  written: boolean;
  /** Matches with an added or replaced observation (what a re-prediction must refresh), ascending. */
  changedMatches: number[];
  /** The merged observations of each of `ids`, one match at a time, in the file's order. */
  observationsOf(ids: ReadonlySet<number>): Iterable<[number, OddsObservation[]]>;
}

/** Rank of each dictionary entry in string order, so that rows compare by number. */
function ranks(names: readonly string[]): Uint32Array {
  const order = names
    .map((_, i) => i)
    .sort((x, y) => (names[x] < names[y] ? -1 : names[x] > names[y] ? 1 : 0));
  const rank = new Uint32Array(names.length);
  order.forEach((i, r) => {
    rank[i] = r;
  });
  return rank;
}

/** Merges by identity (match, market, source, time); a new key is named current under the lock: none lost. */
export async function mergeOddsObservations(
  src: { db: Database; store: ObjectStore },
  observations: readonly OddsObservation[] | ObservationColumns,
): Promise<MergeObservationsResult> {
  const { store } = src;
  let superseded: string | null = null;
  const result = await src.db.transaction(async (tx) => {
    await tx.query('LOCK TABLE odds_observation_sets IN EXCLUSIVE MODE');
    const currentName = await currentKey(tx);
    const current = await store.get(ODDS_OBSERVATIONS.bucket, currentName);
    const rows = current ? await ObservationColumns.decode(current.body) : new ObservationColumns();
    const existing = rows.length;
    if (observations instanceof ObservationColumns) rows.append(observations);
    else for (const o of observations) rows.push(o);
    const { matchId, at, market, source } = rows;
    const sourceRank = ranks(rows.sources);
    const marketRank = ranks(ODDS_MARKETS);
    // Identity groups (match, market, source) in time order; at equal times the stored row first, then
    // the incoming ones in the order given (the sort is stable), so the last of them wins.
    const order = Uint32Array.from({ length: rows.length }, (_, i) => i).sort(
      (x, y) =>
        matchId[x] - matchId[y] ||
        marketRank[market[x]] - marketRank[market[y]] ||
        sourceRank[source[x]] - sourceRank[source[y]] ||
        at[x] - at[y] ||
        x - y,
    );
    const kept = new Uint32Array(rows.length);
    let n = 0;
    let added = 0;
    let replaced = 0;
    const changed = new Set<number>();
    const closing = 2;
    for (let j = 0; j < order.length; j++) {
      const i = order[j];
      const prev = n > 0 ? kept[n - 1] : -1;
      const sameGroup =
        prev >= 0 && matchId[prev] === matchId[i] && market[prev] === market[i] && source[prev] === source[i];
      if (i < existing) {
        kept[n++] = i;
        continue;
      }
      if (sameGroup && at[prev] === at[i]) {
        if (rows.samePrices(prev, i)) continue;
        kept[n - 1] = i;
        replaced++;
        changed.add(matchId[i]);
        continue;
      }
      // Same kind and prices as the source's latest observation of the market: nothing new (a fixture's
      // opening price re-stamped at "now" by each re-ingest would pile up). A → B → A is a move, kept.
      if (sameGroup && rows.kind[i] !== closing && rows.samePrices(prev, i)) continue;
      kept[n++] = i;
      added++;
      changed.add(matchId[i]);
    }
    // File order: match, market, time, source.
    const out = kept
      .subarray(0, n)
      .sort(
        (x, y) =>
          matchId[x] - matchId[y] ||
          marketRank[market[x]] - marketRank[market[y]] ||
          at[x] - at[y] ||
          sourceRank[source[x]] - sourceRank[source[y]] ||
          x - y,
      );
    const merged = {
      rows: n,
      added,
      replaced,
      changedMatches: [...changed].sort((x, y) => x - y),
      *observationsOf(ids: ReadonlySet<number>): Iterable<[number, OddsObservation[]]> {
        for (let j = 0; j < out.length; ) {
          const id = matchId[out[j]];
          let end = j;
          while (end < out.length && matchId[out[end]] === id) end++;
          if (ids.has(id)) {
            const list: OddsObservation[] = [];
            for (let k = j; k < end; k++) list.push(rows.observation(out[k]));
            yield [id, list];
          }
          j = end;
        }
      },
    };
    if (added === 0 && replaced === 0) return { ...merged, written: false };
    const body = rows.encode(out);
    const key = `${SET_PREFIX}${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}.parquet`;
    await store.put(ODDS_OBSERVATIONS.bucket, key, body);
    await tx.query(
      `INSERT INTO odds_observation_sets (singleton, key, sha256, rows) VALUES (true, $1, $2, $3)
         ON CONFLICT (singleton) DO UPDATE SET key = EXCLUDED.key, sha256 = EXCLUDED.sha256,
           rows = EXCLUDED.rows, updated_at = now()`,
      [key, createHash('sha256').update(body).digest('hex'), n],
    );
    await new PendingRepredictions(tx).record(merged.changedMatches);
    superseded = currentName;
    return { ...merged, written: true };
  });
  if (superseded !== null) await pruneObservationSets(store).catch(() => undefined);
  return result;
}

/** Deletes merged files older than the last few (a reader may still be reading the previous one). */
async function pruneObservationSets(store: ObjectStore): Promise<void> {
  const files = (await store.list(ODDS_OBSERVATIONS.bucket, SET_PREFIX)).map((o) => o.key).sort();
  for (const key of files.slice(0, Math.max(0, files.length - 1 - SETS_KEPT))) {
    await store.delete(ODDS_OBSERVATIONS.bucket, key);
  }
}
