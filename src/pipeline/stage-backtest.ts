import { DAY_MS, MatchcastError } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import {
  type ModelFamilyName,
  serializeModel,
  type WalkForwardResult,
  walkForwardBacktest,
} from '../model/index.js';
import { type ModelRegistry, newRunId } from '../registry/index.js';
import { backtestToParquet, putArtifact, readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import { type HorizonReport, horizonReport } from './horizons.js';
import type { BacktestRow } from './predictions-file.js';
import { recipeOf } from './stage-train.js';
import { resultsEnd, type WalkForwardOptions, walkForwardWindow } from './windows.js';

interface BacktestOptions extends WalkForwardOptions {
  family?: ModelFamilyName;
  featureRows?: FeatureRow[];
  /** The rows at kick-off: walked forward too, for `horizons.kickoff` (against the closing line). */
  kickoffFeatureRows?: FeatureRow[];
}

/** `pipeline backtest`: a walk-forward, a run id per fold; writes the backtest file and its report. */
export async function runBacktestStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'log' | 'progress' | 'run' | 'registry'>,
  asOf: Date,
  options: BacktestOptions = {},
) {
  const load = progressOf(deps).step('backtest', 'load', 1);
  const rows = options.featureRows ?? (await readFeatureRows(deps));
  load.done({ rows: rows.length });
  const { from, to, refitDays } = walkForwardWindow(resultsEnd(rows, asOf), asOf, options);
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
  // The folds refit the champion's recipe, so the rows served before its cut-off come from it.
  const champion = await deps.registry.resolve('champion');
  const recipe = champion ? recipeOf(champion) : null;
  const walkOptions = {
    from,
    to,
    refitDays,
    family: recipe?.family ?? options.family,
    params: recipe?.params,
    featureNames: recipe?.featureNames,
  };
  const result = walkForwardBacktest(rows, walkOptions);
  const { rows: backtestRows, runIds } = await foldRows(
    result,
    deps.registry,
    champion?.version ?? null,
    deps.run?.runId ?? null,
  );
  // The kick-off horizon: the same recipe refit walk-forward on rows whose odds are the latest at kick-off.
  const kickoffRows = options.kickoffFeatureRows;
  const kickoff = kickoffRows ? walkForwardBacktest(kickoffRows, walkOptions) : null;
  if (kickoff && kickoffRows) attachKickoff(backtestRows, kickoff, kickoffRows);
  const horizons: { early: HorizonReport; kickoff?: HorizonReport } = {
    early: horizonReport(result.metrics, 'opening'),
    ...(kickoff ? { kickoff: horizonReport(kickoff.metrics, 'closing') } : {}),
  };
  fit.done({
    early_gap: horizons.early.overall.log_loss_gap,
    kickoff_gap: horizons.kickoff?.overall.log_loss_gap,
    folds: result.folds.length,
    predicted: result.predictions.length,
    log_loss: result.metrics.overall.model_log_loss,
    open_log_loss: result.metrics.overall.open_log_loss,
  });

  const write = progressOf(deps).step('backtest', 'write', 2);
  const report = {
    generated_at: new Date().toISOString(),
    as_of: asOf.toISOString(),
    from: from.toISOString(),
    to: to.toISOString(),
    refit_days: refitDays,
    recipe_version: champion?.version ?? null,
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
    horizons,
  };
  // Parquet first, then the report: a reader never sees a report describing a file not yet written.
  const body = backtestToParquet(backtestRows);
  const key = await putArtifact(deps.store, 'backtest', body);
  write.tick();
  await putArtifact(deps.store, 'backtestMetrics', `${JSON.stringify(report, null, 2)}\n`);
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
    horizons,
  };
}

/** Copies the kick-off horizon's prediction of each match onto its backtest row (additive columns). */
function attachKickoff(
  rows: BacktestRow[],
  kickoff: WalkForwardResult,
  kickoffRows: readonly FeatureRow[],
): void {
  const runIds = new Map(kickoff.folds.map((f) => [f.fold_id, newRunId()]));
  const meta = new Map(kickoffRows.map((r) => [r.match_id, r]));
  const byMatch = new Map(kickoff.predictions.map((p) => [p.match_id, p]));
  for (const row of rows) {
    const p = byMatch.get(row.match_id);
    if (!p) continue;
    const m = meta.get(row.match_id);
    row.kickoff_proba_home = p.proba_home;
    row.kickoff_proba_draw = p.proba_draw;
    row.kickoff_proba_away = p.proba_away;
    row.kickoff_model_run_id = runIds.get(p.fold_id) ?? null;
    row.kickoff_training_cutoff = p.training_cutoff;
    row.kickoff_prediction_time = m?.prediction_time ?? null;
    row.kickoff_odds_observed_at = m?.odds_observed_at ?? null;
  }
}

/** Gives every fold a run id recorded in the registry (so a served row names a known run); the rows. */
export async function foldRows(
  result: WalkForwardResult,
  registry: ModelRegistry,
  recipeVersion: string | null,
  pipelineRunId: string | null,
): Promise<{ rows: BacktestRow[]; runIds: Map<number, string> }> {
  const runIds = new Map(result.folds.map((f) => [f.fold_id, newRunId()]));
  const params = Object.fromEntries(Object.entries(result.params).map(([k, v]) => [k, String(v)]));
  await Promise.all(
    result.folds.map((f) =>
      registry.recordRun({
        run_id: runIds.get(f.fold_id)!,
        kind: 'backtest-fold',
        created_at: new Date().toISOString(),
        training_cutoff: f.training_cutoff.toISOString(),
        recipe_version: recipeVersion,
        params,
        feature_names: [...result.featureNames],
        pipeline_run_id: pipelineRunId,
        model: serializeModel(f.model),
      }),
    ),
  );
  const rows = result.predictions.map((p) => ({
    match_id: p.match_id,
    proba_home: p.proba_home,
    proba_draw: p.proba_draw,
    proba_away: p.proba_away,
    model_run_id: runIds.get(p.fold_id)!,
    training_cutoff: p.training_cutoff,
  }));
  return { rows, runIds };
}
