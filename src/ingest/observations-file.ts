import { createHash, randomBytes } from 'node:crypto';
import { type Database, PendingRepredictions, type Queryable } from '../db/index.js';
import {
  isOddsKind,
  isOddsMarket,
  MARKET_OUTCOMES,
  ODDS_OBSERVATIONS,
  type OddsObservation,
} from '../domain/index.js';
import { type ObjectStore, type ParquetColumn, readParquet, writeParquet } from '../storage/index.js';
import { type DecodedEntry, readDecoded, rememberDecoded } from './decoded-cache.js';

/** Columns of `raw-data/odds_observations.parquet`: one row per observation; `price_3` is null for two-way markets. */
export const OBSERVATION_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'market', type: 'string' },
  { name: 'kind', type: 'string' },
  { name: 'observed_at', type: 'timestamp' },
  { name: 'source', type: 'string' },
  { name: 'price_1', type: 'double' },
  { name: 'price_2', type: 'double' },
  { name: 'price_3', type: 'double' },
];

function sameObservation(a: OddsObservation, b: OddsObservation): boolean {
  return (
    a.kind === b.kind && a.prices.length === b.prices.length && a.prices.every((p, i) => p === b.prices[i])
  );
}

/** The newest observation of `market` from `source` made before `t` (ms), or undefined. */
function latestBefore(
  list: readonly OddsObservation[],
  market: OddsObservation['market'],
  source: string,
  t: number,
): OddsObservation | undefined {
  let best: OddsObservation | undefined;
  for (const e of list) {
    if (e.market !== market || e.source !== source) continue;
    const at = e.observed_at.getTime();
    if (at < t && (!best || at > best.observed_at.getTime())) best = e;
  }
  return best;
}

/** Decodes the observations file; a row that is not a complete observation is dropped. */
export async function decodeObservations(buf: Buffer): Promise<OddsObservation[]> {
  const out: OddsObservation[] = [];
  for (const r of await readParquet(buf)) {
    const id = Number(r.match_id);
    const at = r.observed_at instanceof Date ? r.observed_at : null;
    if (!Number.isSafeInteger(id) || !at || !isOddsMarket(r.market) || !isOddsKind(r.kind)) continue;
    const n = MARKET_OUTCOMES[r.market].length;
    const prices = [r.price_1, r.price_2, r.price_3].slice(0, n);
    if (!prices.every((p) => typeof p === 'number' && Number.isFinite(p))) continue;
    out.push({
      match_id: id,
      market: r.market,
      kind: r.kind,
      observed_at: at,
      prices: prices as number[],
      source: typeof r.source === 'string' ? r.source : '',
    });
  }
  return out;
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

/** The observations file decoded: every observation, and the same grouped by match (file order). */
export interface ObservationSet {
  readonly all: readonly OddsObservation[];
  readonly byMatch: ReadonlyMap<number, readonly OddsObservation[]>;
}

const OBSERVATIONS_DECODER = 'observation-set';

function groupByMatch(all: readonly OddsObservation[]): Map<number, OddsObservation[]> {
  const byMatch = new Map<number, OddsObservation[]>();
  for (const o of all) {
    const list = byMatch.get(o.match_id);
    if (list) list.push(o);
    else byMatch.set(o.match_id, [o]);
  }
  return byMatch;
}

/**
 * `raw-data/odds_observations.parquet` decoded, from the per-process cache while its etag is
 * unchanged (ingest leaves the set it merged there). Shared and read-only. Null when absent.
 */
export async function readObservationSet(
  src: ObservationSource,
): Promise<DecodedEntry<ObservationSet> | null> {
  return readObservationSetAt(src.store, await currentKey(src.db));
}

function readObservationSetAt(store: ObjectStore, key: string): Promise<DecodedEntry<ObservationSet> | null> {
  return readDecoded(store, ODDS_OBSERVATIONS.bucket, key, OBSERVATIONS_DECODER, async (body) => {
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
  /** The merged set (so callers need not read the file back). */
  all: OddsObservation[];
  /** Matches with an added or replaced observation (what a re-prediction must refresh), ascending. */
  changedMatches: number[];
}

/**
 * Merges observations into the current observations file by identity (match, market, source,
 * observed_at): new ones are added, a changed one replaces its predecessor, everything else is kept.
 * The merged set is written once under a new key and named current in the same transaction that
 * locked the name, so concurrent merges queue and none is lost; nothing is written when nothing changed.
 */
export async function mergeOddsObservations(
  src: { db: Database; store: ObjectStore },
  observations: readonly OddsObservation[],
): Promise<MergeObservationsResult> {
  const { store } = src;
  let superseded: string | null = null;
  const result = await src.db.transaction(async (tx) => {
    await tx.query('LOCK TABLE odds_observation_sets IN EXCLUSIVE MODE');
    const currentName = await currentKey(tx);
    // Decoded once per version of the file (the cache), never mutated here: the lists are copies.
    const current = await readObservationSetAt(store, currentName);
    // Grouped per match (a handful of observations each): identity and repeat checks are a short scan,
    // not 200k string keys.
    const byMatch = groupByMatch(current?.value.all ?? []);
    let added = 0;
    let replaced = 0;
    const changed = new Set<number>();
    // In time order, so that whether a price repeats the one before it does not depend on file order.
    const incoming = [...observations].sort((a, b) => a.observed_at.getTime() - b.observed_at.getTime());
    for (const o of incoming) {
      let list = byMatch.get(o.match_id);
      if (!list) {
        list = [];
        byMatch.set(o.match_id, list);
      }
      const t = o.observed_at.getTime();
      const same = list.findIndex(
        (e) => e.market === o.market && e.source === o.source && e.observed_at.getTime() === t,
      );
      if (same >= 0) {
        if (sameObservation(list[same], o)) continue;
        list[same] = o;
        replaced++;
        changed.add(o.match_id);
        continue;
      }
      // The same prices and kind as the source's latest observation of the market before this one:
      // nothing new was observed (a fixture's opening price stamped at "now" on every re-ingest would
      // otherwise pile up). Only the latest counts: A → B → A is a move back to A, kept.
      if (o.kind !== 'closing') {
        const before = latestBefore(list, o.market, o.source, t);
        if (before && sameObservation(before, o)) continue;
      }
      list.push(o);
      added++;
      changed.add(o.match_id);
    }
    const changedMatches = [...changed].sort((x, y) => x - y);
    const all: OddsObservation[] = [];
    const ids = [...byMatch.keys()].sort((x, y) => x - y);
    for (const id of ids) {
      const list = byMatch.get(id) as OddsObservation[];
      if (list.length > 1)
        list.sort(
          (a, b) =>
            (a.market < b.market ? -1 : a.market > b.market ? 1 : 0) ||
            a.observed_at.getTime() - b.observed_at.getTime() ||
            (a.source < b.source ? -1 : a.source > b.source ? 1 : 0),
        );
      for (const o of list) all.push(o);
    }
    if (added === 0 && replaced === 0)
      return { rows: all.length, added, replaced, written: false, all, changedMatches };
    const rows = all.map((o) => ({
      match_id: o.match_id,
      market: o.market,
      kind: o.kind,
      observed_at: o.observed_at,
      source: o.source,
      price_1: o.prices[0],
      price_2: o.prices[1],
      price_3: o.prices[2] ?? null,
    }));
    const body = writeParquet(OBSERVATION_COLUMNS, rows);
    const key = `${SET_PREFIX}${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}.parquet`;
    const info = await store.put(ODDS_OBSERVATIONS.bucket, key, body);
    await tx.query(
      `INSERT INTO odds_observation_sets (singleton, key, sha256, rows) VALUES (true, $1, $2, $3)
         ON CONFLICT (singleton) DO UPDATE SET key = EXCLUDED.key, sha256 = EXCLUDED.sha256,
           rows = EXCLUDED.rows, updated_at = now()`,
      [key, createHash('sha256').update(body).digest('hex'), all.length],
    );
    await new PendingRepredictions(tx).record(changedMatches);
    superseded = currentName;
    // The next reader of this version (a re-prediction) decodes nothing.
    rememberDecoded(store, ODDS_OBSERVATIONS.bucket, key, OBSERVATIONS_DECODER, {
      etag: info.etag,
      value: { all, byMatch: groupByMatch(all) },
      body: null,
    });
    return { rows: all.length, added, replaced, written: true, all, changedMatches };
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
