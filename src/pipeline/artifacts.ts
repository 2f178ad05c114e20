import { KEYS, MatchcastError } from '../domain/index.js';
import { type FeatureRow, featureRowsFromParquet } from '../features/index.js';
import type { ObjectStore } from '../storage/index.js';
import { readParquet, writeParquet } from '../storage/index.js';
import { BACKTEST_COLUMNS, type BacktestRow } from './predictions-file.js';

/** Reads `features/match_features.parquet`; MC_ERR_NOT_FOUND when `pipeline features` has not run. */
export async function readFeatureRows(store: ObjectStore): Promise<FeatureRow[]> {
  const obj = await store.get(KEYS.features.bucket, KEYS.features.key);
  if (!obj) {
    throw new MatchcastError(
      'MC_ERR_NOT_FOUND',
      `${KEYS.features.bucket}/${KEYS.features.key} does not exist: run \`matchcast pipeline features\` first`,
    );
  }
  return featureRowsFromParquet(obj.body);
}

export function backtestToParquet(rows: readonly BacktestRow[]): Buffer {
  return writeParquet(BACKTEST_COLUMNS, rows as unknown as Record<string, unknown>[]);
}

/** Reads `predictions/backtest.parquet`; null when no backtest has run. */
export async function readBacktestRows(store: ObjectStore): Promise<BacktestRow[] | null> {
  const obj = await store.get(KEYS.backtest.bucket, KEYS.backtest.key);
  if (!obj) return null;
  return (await readParquet(obj.body)).map((r) => ({
    match_id: Number(r.match_id),
    proba_home: Number(r.proba_home),
    proba_draw: Number(r.proba_draw),
    proba_away: Number(r.proba_away),
    model_run_id: String(r.model_run_id),
    training_cutoff:
      r.training_cutoff instanceof Date ? r.training_cutoff : new Date(String(r.training_cutoff)),
  }));
}
