/**
 * Synthetic artifacts in the exact layouts of docs/pipeline.md (predictions.parquet, odds.parquet,
 * roi_by_region.csv), shared by the serving tests and the precomputed benchmark. The `put*` helpers
 * publish them as a pipeline run does: a run of their own that inherits the served run's other files.
 */
import { OUTCOME_LABELS, predictedClass } from '../src/domain/index.js';
import type { RunBackends } from '../src/runs/run-writer.js';
import { type ParquetColumn, writeParquet } from '../src/storage/index.js';
import { publishArtifacts } from '../test/helpers/served.js';

export const PREDICTION_COLUMNS: ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'home_team_name', type: 'string' },
  { name: 'away_team_name', type: 'string' },
  { name: 'start_time_utc', type: 'timestamp' },
  { name: 'region_id', type: 'int32' },
  { name: 'region_name', type: 'string' },
  { name: 'tournament_name', type: 'string' },
  { name: 'season', type: 'string' },
  { name: 'proba_home', type: 'double' },
  { name: 'proba_draw', type: 'double' },
  { name: 'proba_away', type: 'double' },
  { name: 'predicted_class', type: 'int32' },
  { name: 'predicted_label', type: 'string' },
  { name: 'is_future', type: 'boolean' },
  { name: 'model_stage', type: 'string' },
  { name: 'model_run_id', type: 'string' },
  { name: 'predictions_computed_at', type: 'timestamp' },
  { name: 'home_score', type: 'int32' },
  { name: 'away_score', type: 'int32' },
];

export const ODDS_COLUMNS: ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  ...['odd', 'open', 'close'].flatMap((p) =>
    ['home', 'draw', 'away'].map((o): ParquetColumn => ({ name: `${p}_${o}`, type: 'double' })),
  ),
  { name: 'source', type: 'string' },
];

export type Row = Record<string, unknown>;

/** Deterministic pseudo-random numbers (mulberry32), so fixtures are the same on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PredictionFixtureOptions {
  /** Rows. */
  n: number;
  /** First match id. Default `1`. */
  firstId?: number;
  /** Rows whose kick-off is after `now` (the last ones). Default a quarter of `n`. */
  future?: number;
  /** Default `run-0001`. */
  runId?: string;
  /** Default `2026-01-01T00:00:00Z`. */
  computedAt?: Date;
  /** Default `1`. */
  seed?: number;
}

/** Rows of `predictions/predictions.parquet`; finished matches carry scores, future ones do not. */
export function predictionRows(options: PredictionFixtureOptions): Row[] {
  const { n, firstId = 1, runId = 'run-0001', seed = 1 } = options;
  const future = options.future ?? Math.floor(n / 4);
  const computedAt = options.computedAt ?? new Date('2026-01-01T00:00:00Z');
  const rand = rng(seed);
  const base = computedAt.getTime();
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const isFuture = i >= n - future;
    const a = 0.2 + rand() * 0.5;
    const d = 0.15 + rand() * 0.2;
    const total = a + d + 0.1 + rand() * 0.5;
    const p: [number, number, number] = [a / total, d / total, 0];
    p[2] = 1 - p[0] - p[1];
    const cls = predictedClass(p);
    const region = i % 20;
    // Kick-offs a few hours apart, past ones before computedAt and future ones after.
    const start = new Date(base + (isFuture ? i - (n - future) + 1 : i - (n - future)) * 3 * 3600_000);
    rows.push({
      match_id: firstId + i,
      home_team_name: `Home ${region}-${i % 97} & Co`,
      away_team_name: `Away ${region}-${(i * 7) % 89}/FC`,
      start_time_utc: start,
      region_id: region + 1,
      region_name: `Region ${region + 1}`,
      tournament_name: `League ${region + 1}`,
      season: '2025-2026',
      proba_home: p[0],
      proba_draw: p[1],
      proba_away: p[2],
      predicted_class: cls,
      predicted_label: OUTCOME_LABELS[cls],
      is_future: isFuture,
      model_stage: i % 5 === 0 && !isFuture ? 'backtest' : 'champion',
      model_run_id: runId,
      predictions_computed_at: computedAt,
      home_score: isFuture ? null : Math.floor(rand() * 4),
      away_score: isFuture ? null : Math.floor(rand() * 3),
    });
  }
  return rows;
}

/** Odds for every other match of `ids` (so cards show both known and unknown odds). */
export function oddsRows(ids: readonly number[]): Row[] {
  return ids
    .filter((_, i) => i % 2 === 0)
    .map((id) => ({
      match_id: id,
      odd_home: 2.1,
      odd_draw: 3.3,
      odd_away: 3.6,
      open_home: 2.2,
      open_draw: 3.2,
      open_away: 3.5,
      close_home: 2.1,
      close_draw: 3.3,
      close_away: 3.6,
      source: 'synthetic',
    }));
}

/** Publishes `rows` as the served predictions; returns the run id. */
export function putPredictions(
  deps: RunBackends,
  rows: Row[],
  columns = PREDICTION_COLUMNS,
): Promise<string> {
  return publishArtifacts(deps, { predictions: writeParquet(columns, rows) });
}

/** Publishes `rows` as the served odds; returns the run id. */
export function putOdds(deps: RunBackends, rows: Row[]): Promise<string> {
  return publishArtifacts(deps, { odds: writeParquet(ODDS_COLUMNS, rows) });
}

/** Publishes `csv` as the served ROI by region; returns the run id. */
export function putRoiCsv(deps: RunBackends, csv: string): Promise<string> {
  return publishArtifacts(deps, { roiByRegion: csv });
}
