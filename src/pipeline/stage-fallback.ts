import { type FeatureRow, MARKET_FREE_FEATURE_NAMES } from '../features/index.js';
import {
  deserializeModel,
  type Model,
  type TrainParams,
  trainAndValidate,
  walkForwardBacktest,
} from '../model/index.js';
import { ModelRegistry, type ModelVersion } from '../registry/index.js';
import { backtestToParquet, putArtifact } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import type { BacktestRow } from './predictions-file.js';
import { foldRows } from './stage-backtest.js';
import { newVersionOf } from './stage-train.js';
import { resultsEnd, type WalkForwardOptions, walkForwardWindow } from './windows.js';

/** The market-free fallback's recipe, fixed on the tuning windows of docs/model-quality.md. */
export const FALLBACK_PARAMS: TrainParams = { family: 'multinomial_logit', l2: 0.003 };

/** Name of the fallback in the registry: the 1X2 model's name + `-market-free`. */
export function fallbackModelName(modelName: string): string {
  return `${modelName}-market-free`;
}

/** The fallback's registry, beside the real store (not a run's view). */
function fallbackRegistry(deps: Pick<PipelineDeps, 'db' | 'store' | 'run' | 'config'>): ModelRegistry {
  return new ModelRegistry(
    { db: deps.db, store: deps.run?.base ?? deps.store },
    fallbackModelName(deps.config.modelName),
  );
}

/** The fallback's champion and its parsed model (`cached` when it holds that version), or null. */
export async function fallbackChampion(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'run' | 'config'>,
  cached?: { version: string; model: Model },
): Promise<{ version: ModelVersion; model: Model } | null> {
  const registry = fallbackRegistry(deps);
  const version = await registry.resolve('champion');
  if (!version) return null;
  if (cached?.version === version.version) return { version, model: cached.model };
  return { version, model: deserializeModel((await registry.loadArtifact(version)).toString('utf8')) };
}

interface FallbackStageOptions extends WalkForwardOptions {
  validationDays?: number;
}

interface FallbackStageResult {
  version: ModelVersion;
  model: Model;
  backtestRows: BacktestRow[];
  log_loss: number;
  folds: number;
}

/**
 * `pipeline fallback`: fits the market-free model as `champion` of `<MODEL_NAME>-market-free` (it serves only
 * matches with no odds, so without sign-off) and walks it forward so past matches without odds get rows.
 */
export async function runFallbackStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'log' | 'progress' | 'run' | 'config'>,
  asOf: Date,
  featureRows: FeatureRow[],
  options: FallbackStageOptions = {},
): Promise<FallbackStageResult> {
  const rows = featureRows;
  const end = resultsEnd(rows, asOf);
  const fit = progressOf(deps).step('fallback', 'fit', 1);
  const validationDays = options.validationDays ?? 365;
  const result = trainAndValidate(rows, {
    asOf: end,
    validationDays,
    params: FALLBACK_PARAMS,
    featureNames: MARKET_FREE_FEATURE_NAMES,
  });
  const registry = fallbackRegistry(deps);
  const version = await registry.registerVersion(
    newVersionOf(deps, result, asOf, end, validationDays, { role: 'market-free fallback' }),
  );
  await registry.setAlias(
    'champion',
    version.version,
    'pipeline',
    'market-free fallback retrained by the run',
  );
  fit.done({ version: version.version, log_loss: result.metrics.log_loss });

  const wf = progressOf(deps).step('fallback', 'walk-forward', 1);
  const bt = walkForwardBacktest(rows, {
    ...walkForwardWindow(end, asOf, options),
    params: FALLBACK_PARAMS,
    featureNames: MARKET_FREE_FEATURE_NAMES,
  });
  const { rows: backtestRows } = await foldRows(bt, registry, version.version, deps.run?.runId ?? null);
  await putArtifact(deps.store, 'fallbackBacktest', backtestToParquet(backtestRows));
  wf.done({ folds: bt.folds.length, rows: backtestRows.length });
  return {
    version,
    model: result.model,
    backtestRows,
    log_loss: result.metrics.log_loss,
    folds: bt.folds.length,
  };
}
