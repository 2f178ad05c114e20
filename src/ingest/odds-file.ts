import {
  emptyOddsRecord,
  isMatchcastError,
  KEYS,
  type OddsMarket,
  type OddsObservation,
  type OddsRecord,
  OddsTimeline,
} from '../domain/index.js';
import type { ObjectStore } from '../storage/index.js';
import { type DecodedEntry, readDecoded, rememberDecoded } from './decoded-cache.js';
import { OddsColumns } from './odds-columns.js';

/** Column suffix of each market's outcomes in the odds artifact. */
const SUFFIX: Record<OddsMarket, readonly string[]> = {
  '1x2': ['home', 'draw', 'away'],
  ou25: ['over25', 'under25'],
  btts: ['btts_yes', 'btts_no'],
};

/**
 * The odds record of a match from its observations (a pure function of them, whatever order files
 * came in): per market `open_*` = the first opening observation, `close_*` = the last closing one,
 * `odd_*` = the newest observation (what a user saw last before kick-off). `source` is the source of the
 * newest 1X2 observation (else of any). A market nobody quoted stays null: odds are never invented.
 * Null when the match has no observation.
 */
export function summariseOdds(matchId: number, timeline: OddsTimeline): OddsRecord | null {
  const rec = emptyOddsRecord(matchId) as unknown as Record<string, unknown>;
  let source: string | null = null;
  let any = false;
  for (const market of Object.keys(SUFFIX) as OddsMarket[]) {
    const last = timeline.last(matchId, market);
    if (!last) continue;
    any = true;
    const open = timeline.opening(matchId, market);
    const close = timeline.closing(matchId, market);
    SUFFIX[market].forEach((s, i) => {
      rec[`odd_${s}`] = last.prices[i];
      rec[`open_${s}`] = open ? open.prices[i] : null;
      rec[`close_${s}`] = close ? close.prices[i] : null;
    });
    if (market === '1x2') {
      rec.odds_observed_at = last.observed_at;
      rec.open_observed_at = open?.observed_at ?? null;
      rec.close_observed_at = close?.observed_at ?? null;
      source = last.source;
    } else source ??= last.source;
  }
  if (!any) return null;
  rec.source = source ?? '';
  return rec as unknown as OddsRecord;
}

/**
 * The odds record of a match as it stood at `at`: summarised from its observations made at or before
 * `at` only, so a later price cannot reach what is computed from it. A match without any observation
 * (a store from before observations) keeps `fallback`, its run's record: its times are unknown, there
 * is nothing to filter on. The goals stage and the live worker both take a match's own prices from it.
 */
export function oddsRecordAsOf(
  matchId: number,
  observations: Iterable<OddsObservation> | undefined,
  fallback: OddsRecord | undefined,
  at: Date,
): OddsRecord | undefined {
  const seen: OddsObservation[] = [];
  let covered = false;
  for (const o of observations ?? []) {
    covered = true;
    if (o.observed_at.getTime() <= at.getTime()) seen.push(o);
  }
  if (!covered) return fallback;
  return summariseOdds(matchId, OddsTimeline.from(seen)) ?? undefined;
}

/** Decodes `raw-data/odds.parquet` rows; rows without a usable match_id are dropped. */
export async function decodeOdds(buf: Buffer): Promise<OddsRecord[]> {
  return [...(await OddsColumns.fromParquet(buf)).values()];
}

/** Reads `raw-data/odds.parquet` (empty when absent). */
export async function readOddsFile(store: ObjectStore): Promise<OddsRecord[]> {
  const obj = await store.get(KEYS.odds.bucket, KEYS.odds.key);
  return obj ? decodeOdds(obj.body) : [];
}

/** The odds file decoded: its records (sorted by match id when written by ingest) and an index by match. */
export interface OddsSet {
  /** Made afresh on every read: a run's gates read them once. */
  readonly records: readonly OddsRecord[];
  readonly byId: Pick<ReadonlyMap<number, OddsRecord>, 'get' | 'values'>;
}

const ODDS_DECODER = 'odds-set';

/** What the cache holds: the set over columns, ~0.25 KB a match, a record made when one is asked for. */
interface ColumnOddsSet extends OddsSet {
  readonly byId: OddsColumns;
}

function oddsSet(columns: OddsColumns): ColumnOddsSet {
  return {
    byId: columns,
    get records() {
      return [...columns.values()];
    },
  };
}

/**
 * `raw-data/odds.parquet` decoded, from the per-process cache while its etag is unchanged (ingest
 * leaves what it wrote there). Shared and read-only. `keepBody` also keeps the file's bytes (a run's
 * odds snapshot is a copy of them). Null when the file is absent.
 */
export function readOddsSet(
  store: ObjectStore,
  options: { keepBody?: boolean } = {},
): Promise<DecodedEntry<ColumnOddsSet> | null> {
  return readDecoded(
    store,
    KEYS.odds.bucket,
    KEYS.odds.key,
    ODDS_DECODER,
    async (body) => oddsSet(await OddsColumns.fromParquet(body)),
    options,
  );
}

/**
 * Merges `records` into `raw-data/odds.parquet` by match_id (a new record replaces the old one of its
 * match; other matches are kept, so a second source does not drop the first) and writes it back with a
 * plain put: two merges at once keep only the last one's records. Nothing is written when the merge
 * changes nothing. Both sides are held as columns ({@link OddsColumns}), never as a record per match.
 * @returns rows in the file and whether it was written.
 */
export async function mergeOddsFile(
  store: ObjectStore,
  records: readonly OddsRecord[] | OddsColumns,
): Promise<{ rows: number; written: boolean }> {
  const incoming = records instanceof OddsColumns ? records : OddsColumns.from(records, records.length);
  for (let attempt = 0; ; attempt++) {
    // Decoded once per version of the file (the cache), never mutated here.
    const base = (await readOddsSet(store))?.value.byId ?? null;
    const merged = OddsColumns.merge(base, incoming);
    if (!merged) return { rows: base?.size ?? 0, written: false };
    const body = merged.encode();
    try {
      const info = await store.put(KEYS.odds.bucket, KEYS.odds.key, body);
      // The next reader of this version (the re-prediction that follows an ingest) decodes nothing;
      // held as columns, and dropped once idle.
      rememberDecoded(store, KEYS.odds.bucket, KEYS.odds.key, ODDS_DECODER, {
        etag: info.etag,
        value: oddsSet(merged),
        body,
      });
      return { rows: merged.size, written: true };
    } catch (err) {
      // Another writer changed the file meanwhile: merge again, a few times at most.
      if (isMatchcastError(err, 'MC_ERR_CONFLICT') && attempt < 5) continue;
      throw err;
    }
  }
}
