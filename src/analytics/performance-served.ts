import { SERVED_LOG } from '../domain/index.js';
import { type ArtifactSource, readArtifact } from '../runs/index.js';
import { type ObjectStore, type ParquetColumn, readParquet, writeParquet } from '../storage/index.js';
import { asDate, numOrNull, threeWay } from './io.js';
import { compactTimestamp } from './report-names.js';

/** The append-only served log: later runs or rollbacks never change a match's realised figures. */
const SERVED_COLUMNS: readonly ParquetColumn[] = (
  [
    ['int64', 'match_id'],
    ['int32', 'region_id'],
    ['string', 'region_name'],
    ['timestamp', 'start_time_utc'],
    ['double', 'proba_home', 'proba_draw', 'proba_away'],
    ['string', 'model_stage', 'model_run_id', 'publication_id'],
    ['timestamp', 'served_at', 'recorded_at'],
    ['double', 'used_open_home', 'used_open_draw', 'used_open_away'],
    ['timestamp', 'odds_observed_at'],
  ] as const
).flatMap(([type, ...names]) => names.map((name) => ({ name, type })));

interface RecordServedOptions {
  /** The publication's "now" (run as-of / replay clock). Only rows kicking off after it are logged. */
  servedAt: Date;
  /** Id of the run or re-prediction that published the rows. Default: none. */
  publicationId?: string;
  /** Feature rows (or any rows with `match_id` and `odds_open_*`) for the odds each row used. Default none. */
  featureRows?: ReadonlyArray<{ match_id: number }>;
}

/** Key of one publication's file: names sort by the publication instant. */
function servedLogKey(servedAt: Date, publicationId: string | undefined, now: Date): string {
  const tag = (publicationId ?? compactTimestamp(now)).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return `${SERVED_LOG.prefix}${compactTimestamp(servedAt)}_${tag}.parquet`;
}

/** Logs the live (not backtest) rows kicking off after `servedAt`; idempotent per publication. */
export async function recordServedPredictions(
  store: ObjectStore,
  // A `PredictionRow` has these fields; `odds_observed_at` only when the publisher knows it.
  rows: readonly (Omit<PublishedPrediction, 'odds_observed_at'> & { odds_observed_at?: Date | null })[],
  options: RecordServedOptions,
): Promise<{ rows: number; key: string | null }> {
  const servedMs = options.servedAt.getTime();
  const now = new Date();
  const odds = new Map((options.featureRows ?? []).map((f) => [f.match_id, f as Record<string, unknown>]));
  const out: ServedRow[] = [];
  for (const r of rows) {
    if (r.model_stage === 'backtest' || r.start_time_utc.getTime() <= servedMs) continue;
    const f = odds.get(r.match_id);
    // Only the log's columns are written: whatever else the row holds stays out of the file.
    out.push({
      ...r,
      publication_id: options.publicationId ?? null,
      served_at: options.servedAt,
      recorded_at: now,
      used_open_home: f ? numOrNull(f.odds_open_home) : null,
      used_open_draw: f ? numOrNull(f.odds_open_draw) : null,
      used_open_away: f ? numOrNull(f.odds_open_away) : null,
      odds_observed_at: r.odds_observed_at ?? null,
    });
  }
  if (out.length === 0) return { rows: 0, key: null };
  const key = servedLogKey(options.servedAt, options.publicationId, now);
  await store.put(
    SERVED_LOG.bucket,
    key,
    writeParquet(SERVED_COLUMNS, out as unknown as Record<string, unknown>[]),
  );
  return { rows: out.length, key };
}

/** The published-prediction fields of a parquet record (predictions file or served log); null when unusable. */
export function toPublishedPrediction(r: Record<string, unknown>) {
  const id = numOrNull(r.match_id);
  const start = asDate(r.start_time_utc);
  const p = threeWay(r, 'proba');
  if (id === null || !start || !p) return null;
  return {
    match_id: id,
    region_id: numOrNull(r.region_id) ?? 0,
    region_name: typeof r.region_name === 'string' ? r.region_name : '',
    start_time_utc: start,
    proba_home: p[0],
    proba_draw: p[1],
    proba_away: p[2],
    model_stage: typeof r.model_stage === 'string' ? r.model_stage : 'champion',
    model_run_id: typeof r.model_run_id === 'string' ? r.model_run_id : '',
    odds_observed_at: asDate(r.odds_observed_at),
  };
}

type PublishedPrediction = NonNullable<ReturnType<typeof toPublishedPrediction>>;

function toServedRow(r: Record<string, unknown>) {
  const base = toPublishedPrediction(r);
  const servedAt = asDate(r.served_at);
  if (!base || !servedAt) return null;
  return {
    ...base,
    publication_id: typeof r.publication_id === 'string' ? r.publication_id : null,
    served_at: servedAt,
    recorded_at: asDate(r.recorded_at) ?? servedAt,
    used_open_home: numOrNull(r.used_open_home),
    used_open_draw: numOrNull(r.used_open_draw),
    used_open_away: numOrNull(r.used_open_away),
  };
}

export type ServedRow = NonNullable<ReturnType<typeof toServedRow>>;

/** Every row of the served log, in publication order (file names sort by the publication instant). */
export async function readServedLog(store: ObjectStore): Promise<ServedRow[]> {
  const files = (await store.list(SERVED_LOG.bucket, SERVED_LOG.prefix))
    .map((o) => o.key)
    .filter((k) => k.endsWith('.parquet'))
    .sort();
  const out: ServedRow[] = [];
  for (const key of files) {
    const obj = await store.get(SERVED_LOG.bucket, key);
    if (!obj) continue; // deleted between list and get
    for (const r of await readParquet(obj.body)) {
      const row = toServedRow(r);
      if (row) out.push(row);
    }
  }
  return out;
}

/** Per match, the last row served strictly before kick-off (`kickoffOf`, else the row's own; ties: later). */
export function servedBeforeKickoff<T extends Pick<ServedRow, 'match_id' | 'start_time_utc' | 'served_at'>>(
  rows: readonly T[],
  kickoffOf: (matchId: number) => Date | undefined = () => undefined,
): Map<number, T> {
  const out = new Map<number, T>();
  for (const r of rows) {
    const kickoff = kickoffOf(r.match_id) ?? r.start_time_utc;
    if (r.served_at.getTime() >= kickoff.getTime()) continue;
    const prev = out.get(r.match_id);
    if (!prev || r.served_at.getTime() >= prev.served_at.getTime()) out.set(r.match_id, r);
  }
  return out;
}

/** Logs the published run's predictions for `runs publish` / `runs rollback` (not made by `pipeline run`). */
export async function recordServedFromPublished(
  src: ArtifactSource,
  options: { servedAt: Date; publicationId?: string },
): Promise<{ rows: number; key: string | null }> {
  const obj = await readArtifact(src, 'predictions');
  if (!obj) return { rows: 0, key: null };
  return recordServedPredictions(
    src.store,
    (await readParquet(obj.body)).flatMap((r) => toPublishedPrediction(r) ?? []),
    options,
  );
}
