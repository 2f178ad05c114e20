import {
  emptyOddsRecord,
  isMatchcastError,
  KEYS,
  ODDS_1X2_FIELDS,
  ODDS_GOALS_FIELDS,
  ODDS_PRICE_FIELDS,
  ODDS_TIME_FIELDS,
  type OddsMarket,
  type OddsObservation,
  type OddsRecord,
  OddsTimeline,
} from '../domain/index.js';
import { type ObjectStore, type ParquetColumn, readParquetColumns, writeParquet } from '../storage/index.js';
import { type DecodedEntry, readDecoded, rememberDecoded } from './decoded-cache.js';

/** Columns of `raw-data/odds.parquet` (docs/pipeline.md, "Artifact columns"; everything after `source` is additive, nullable). */
export const ODDS_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  ...ODDS_1X2_FIELDS.map((name) => ({ name, type: 'double' as const })),
  { name: 'source', type: 'string' },
  ...ODDS_GOALS_FIELDS.map((name) => ({ name, type: 'double' as const })),
  ...ODDS_TIME_FIELDS.map((name) => ({ name, type: 'timestamp' as const })),
];

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

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const date = (v: unknown): Date | null =>
  v instanceof Date && Number.isFinite(v.getTime()) ? v : typeof v === 'string' ? new Date(v) : null;

/** Decodes `raw-data/odds.parquet` rows; rows without a usable match_id are dropped. */
export async function decodeOdds(buf: Buffer): Promise<OddsRecord[]> {
  // By columns: hyparquet's row objects would hold every field in dictionary mode (~2 KB a row).
  const columns = await readParquetColumns(buf);
  const col = (name: string): readonly unknown[] => columns.get(name) ?? [];
  const ids = col('match_id');
  const sources = col('source');
  const prices = ODDS_PRICE_FIELDS.map((n) => [n, col(n)] as const);
  const times = ODDS_TIME_FIELDS.map((n) => [n, col(n)] as const);
  const out: OddsRecord[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = Number(ids[i]);
    if (!Number.isSafeInteger(id)) continue;
    const rec = emptyOddsRecord(id, typeof sources[i] === 'string' ? (sources[i] as string) : '');
    const fields = rec as unknown as Record<string, unknown>;
    for (const [n, values] of prices) fields[n] = num(values[i]);
    for (const [n, values] of times) fields[n] = date(values[i]);
    out.push(rec);
  }
  return out;
}

/** Reads `raw-data/odds.parquet` (empty when absent). */
export async function readOddsFile(store: ObjectStore): Promise<OddsRecord[]> {
  const obj = await store.get(KEYS.odds.bucket, KEYS.odds.key);
  return obj ? decodeOdds(obj.body) : [];
}

/** The odds file decoded: its records (sorted by match id when written by ingest) and an index by match. */
export interface OddsSet {
  readonly records: readonly OddsRecord[];
  readonly byId: ReadonlyMap<number, OddsRecord>;
}

const ODDS_DECODER = 'odds-set';

function oddsSet(records: readonly OddsRecord[]): OddsSet {
  return { records, byId: new Map(records.map((r) => [r.match_id, r])) };
}

/**
 * `raw-data/odds.parquet` decoded, from the per-process cache while its etag is unchanged (ingest
 * leaves what it wrote there). Shared and read-only. `keepBody` also keeps the file's bytes (a run's
 * odds snapshot is a copy of them). Null when the file is absent.
 */
export function readOddsSet(
  store: ObjectStore,
  options: { keepBody?: boolean } = {},
): Promise<DecodedEntry<OddsSet> | null> {
  return readDecoded(
    store,
    KEYS.odds.bucket,
    KEYS.odds.key,
    ODDS_DECODER,
    async (body) => oddsSet(await decodeOdds(body)),
    options,
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  return (a ?? null) === (b ?? null);
}

function sameRecord(a: OddsRecord, b: OddsRecord): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  return ODDS_COLUMNS.every((c) => sameValue(x[c.name], y[c.name]));
}

interface MergeOddsOptions {
  /** Compare-and-swap retries when another writer changed the file meanwhile. Default `5`. */
  retries?: number;
}

/**
 * Merges `records` into `raw-data/odds.parquet` by match_id (a new record replaces the old one of its
 * match; other matches are kept, so a second source does not drop the first) and writes it back with a
 * plain put: two merges at once keep only the last one's records. Nothing is written when the merge
 * changes nothing.
 * @returns rows in the file and whether it was written.
 */
export async function mergeOddsFile(
  store: ObjectStore,
  records: readonly OddsRecord[],
  options: MergeOddsOptions = {},
): Promise<{ rows: number; written: boolean }> {
  const retries = options.retries ?? 5;
  for (let attempt = 0; ; attempt++) {
    // Decoded once per version of the file (the cache), never mutated here: `byId` is a copy.
    const current = await readOddsSet(store);
    const byId = new Map(current?.value.byId ?? []);
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
      const info = await store.put(KEYS.odds.bucket, KEYS.odds.key, body);
      // The next reader of this version (a re-prediction) decodes nothing.
      rememberDecoded(store, KEYS.odds.bucket, KEYS.odds.key, ODDS_DECODER, {
        etag: info.etag,
        value: oddsSet(rows),
        body,
      });
      return { rows: rows.length, written: true };
    } catch (err) {
      if (isMatchcastError(err, 'MC_ERR_CONFLICT') && attempt < retries) continue;
      throw err;
    }
  }
}
