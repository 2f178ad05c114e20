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

const SUFFIX: Record<OddsMarket, readonly string[]> = {
  '1x2': ['home', 'draw', 'away'],
  ou25: ['over25', 'under25'],
  btts: ['btts_yes', 'btts_no'],
};

/** A match's odds record from its observations: first opening, last closing, newest; source: newest 1X2's. */
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

/** A match's odds record as of `at`; `fallback` for a store from before observations (no times to filter). */
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

export async function decodeOdds(buf: Buffer): Promise<OddsRecord[]> {
  return [...(await OddsColumns.fromParquet(buf)).values()];
}

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

/** `raw-data/odds.parquet` decoded, cached while its etag holds; shared, read-only. */
export function readOddsSet(
  store: ObjectStore,
  options: { keepBody?: boolean } = {},
): Promise<DecodedEntry<ColumnOddsSet> | null> {
  const decode = async (body: Buffer) => oddsSet(await OddsColumns.fromParquet(body));
  return readDecoded(store, KEYS.odds.bucket, KEYS.odds.key, ODDS_DECODER, decode, options);
}

/** Merges into `raw-data/odds.parquet` by match_id, other matches kept; of two merges at once the last wins. */
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
      // The re-prediction that follows an ingest decodes nothing.
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
