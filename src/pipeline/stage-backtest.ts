import { KEYS, MatchcastError } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import { type ModelFamily, walkForwardBacktest } from '../model/index.js';
import { newRunId } from '../registry/index.js';
import { backtestToParquet, readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import type { BacktestRow } from './predictions-file.js';
import { resultsEnd } from './windows.js';

const DAY_MS = 86_400_000;

/** Options of {@link runBacktestStage}. */
export interface BacktestOptions {
  /**
   * First refit date. Default 730 days before the last known result (`resultsEnd`; = as-of on live
   * data): two seasons, enough folds for the simulation, bounded run time.
   */
  from?: Date;
  /** End (exclusive) of the predicted kick-offs. Default `asOf`: only matches known by as-of. */
  to?: Date;
  /** Days between refits. Default `90`. */
  refitDays?: number;
  /** Classifier family. Default `multinomial_logit`. */
  family?: ModelFamily;
  featureRows?: FeatureRow[];
}

export interface BacktestResult {
  rows: number;
  folds: number;
  from: string;
  to: string;
  refit_days: number;
  metrics: Record<string, number>;
  key: string;
  backtestRows: BacktestRow[];
}

/**
 * `pipeline backtest`: walk-forward from `from` to `to`, a refit every `refitDays`; each fold's model
 * sees only matches that kicked off before its refit date and gets its own run id. Writes
 * `predictions/backtest.parquet` and `predictions/backtest_metrics.json` (overall and per-region
 * metrics of the model and of the opening/closing odds on the same matches, and the folds).
 */
export async function runBacktestStage(
  deps: Pick<PipelineDeps, 'store' | 'log' | 'progress'>,
  asOf: Date,
  options: BacktestOptions = {},
): Promise<BacktestResult> {
  const load = progressOf(deps).step('backtest', 'load', 1);
  const rows = options.featureRows ?? (await readFeatureRows(deps.store));
  load.done({ rows: rows.length });
  const from = options.from ?? new Date(resultsEnd(rows, asOf).getTime() - 730 * DAY_MS);
  const to = options.to ?? asOf;
  const refitDays = options.refitDays ?? 90;
  if (!(from < to)) {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `--from ${from.toISOString()} must be before --to ${to.toISOString()}`,
    );
  }
  if (!Number.isInteger(refitDays) || refitDays < 1) {
    throw new MatchcastError('MC_ERR_VALIDATION', '--refit-days must be a positive integer');
  }
  const nFolds = Math.ceil((to.getTime() - from.getTime()) / (refitDays * DAY_MS));
  const fit = progressOf(deps).step('backtest', 'walk-forward', nFolds);
  const result = walkForwardBacktest(rows, { from, to, refitDays, family: options.family });
  const runIds = new Map(result.folds.map((f) => [f.fold_id, newRunId()]));
  fit.done({
    folds: result.folds.length,
    predicted: result.predictions.length,
    log_loss: result.metrics.overall.model_log_loss,
    open_log_loss: result.metrics.overall.open_log_loss,
  });

  const write = progressOf(deps).step('backtest', 'write', 2);
  const backtestRows: BacktestRow[] = result.predictions.map((p) => ({
    match_id: p.match_id,
    proba_home: p.proba_home,
    proba_draw: p.proba_draw,
    proba_away: p.proba_away,
    model_run_id: runIds.get(p.fold_id)!,
    training_cutoff: p.training_cutoff,
  }));
  const report = {
    generated_at: new Date().toISOString(),
    as_of: asOf.toISOString(),
    from: from.toISOString(),
    to: to.toISOString(),
    refit_days: refitDays,
    params: result.params,
    feature_names: result.featureNames,
    n_predictions: backtestRows.length,
    folds: result.folds.map((f) => ({
      fold_id: f.fold_id,
      model_run_id: runIds.get(f.fold_id),
      training_cutoff: f.training_cutoff.toISOString(),
      until: f.until.toISOString(),
      n_train: f.n_train,
      n_predicted: f.n_predicted,
    })),
    metrics: result.metrics,
  };
  // Parquet first, then the report: a reader never sees a report describing a file not yet written.
  const body = backtestToParquet(backtestRows);
  await deps.store.put(KEYS.backtest.bucket, KEYS.backtest.key, body);
  write.tick();
  await deps.store.put(
    KEYS.backtestMetrics.bucket,
    KEYS.backtestMetrics.key,
    `${JSON.stringify(report, null, 2)}\n`,
  );
  const key = `${KEYS.backtest.bucket}/${KEYS.backtest.key}`;
  write.done({ key, rows: backtestRows.length, bytes: body.length });
  return {
    rows: backtestRows.length,
    folds: result.folds.length,
    from: from.toISOString(),
    to: to.toISOString(),
    refit_days: refitDays,
    metrics: result.metrics.overall,
    key,
    backtestRows,
  };
}
