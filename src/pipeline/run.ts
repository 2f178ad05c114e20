import type { FeatureRow } from '../features/index.js';
import type { ModelFamily } from '../model/index.js';
import type { PipelineDeps, StageName } from './deps.js';
import { type BacktestResult, runBacktestStage } from './stage-backtest.js';
import { type FeaturesResult, runFeaturesStage } from './stage-features.js';
import { type PredictResult, runPredictStage } from './stage-predict.js';
import { type PromoteResult, runPromoteStage } from './stage-promote.js';
import { runTrainStage, type TrainResult } from './stage-train.js';

/**
 * The analysis stages (simulate, drift) live in src/analytics; `pipeline run` calls them through this
 * port so that the pipeline does not depend on their options. Each receives the deps and the as-of.
 */
export interface AnalyticsStages {
  simulate?: (deps: PipelineDeps, asOf: Date) => Promise<unknown>;
  drift?: (deps: PipelineDeps, asOf: Date) => Promise<unknown>;
}

/** The default analysis stages, loaded on demand from src/analytics. */
export async function defaultAnalyticsStages(): Promise<AnalyticsStages> {
  const analytics = await import('../analytics/index.js');
  return {
    simulate: (deps, asOf) => analytics.runSimulateStage(deps, { asOf }),
    drift: (deps, asOf) => analytics.runDriftStage(deps, { asOf }),
  };
}

/** Options of {@link runPipeline}. */
export interface RunOptions {
  /** Classifier family of the trained version and of the backtest. Default `multinomial_logit`. */
  family?: ModelFamily;
  /** Backtest start. Default `asOf − 730 days`. */
  backtestFrom?: Date;
  /** Backtest end (exclusive). Default `asOf`. */
  backtestTo?: Date;
  /** Backtest refit interval. Default `90`. */
  refitDays?: number;
  /** Runs before `features` (e.g. ingest when `--source` is given). Default none. */
  ingest?: () => Promise<unknown>;
  /** Simulate and drift. Default {@link defaultAnalyticsStages}. */
  analytics?: AnalyticsStages;
  /**
   * Runs between promote and predict; `bootstrapFirstRun` signs off the first champion here.
   * Default none.
   */
  afterPromote?: (promote: PromoteResult, featureRows: FeatureRow[]) => Promise<void>;
}

export interface RunResult {
  as_of: string;
  seconds: Record<string, number>;
  total_seconds: number;
  features: FeaturesResult;
  train: TrainResult;
  promote: PromoteResult;
  backtest: BacktestResult;
  /** Null when there is no champion yet (first run before the operator's sign-off): nothing to serve. */
  predict: PredictResult | null;
  simulate: unknown;
  drift: unknown;
  skipped: string[];
}

/**
 * `pipeline run`: (ingest) → features → train → promote → backtest → predict → simulate → drift. Stages
 * hand their in-memory results on (the feature rows are read once); every artifact is still written
 * to the store as the stage finishes, each in one atomic put, so a failure leaves earlier artifacts
 * of this run and every artifact of the previous run intact.
 */
export async function runPipeline(
  deps: PipelineDeps,
  asOf: Date,
  options: RunOptions = {},
): Promise<RunResult> {
  const seconds: Record<string, number> = {};
  const skipped: string[] = [];
  const t0 = performance.now();
  async function timed<T>(name: StageName | 'ingest', fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    deps.log.debug({ stage: name }, `${name} started`);
    const result = await fn();
    seconds[name] = Number(((performance.now() - t) / 1000).toFixed(3));
    deps.log.info({ stage: name, seconds: seconds[name] }, `${name} finished`);
    return result;
  }
  if (options.ingest) await timed('ingest', options.ingest);
  const features = await timed('features', () => runFeaturesStage(deps, asOf));
  const featureRows = features.featureRows;
  const train = await timed('train', () =>
    runTrainStage(deps, asOf, { family: options.family, featureRows }),
  );
  const promote = await timed('promote', () => runPromoteStage(deps, { featureRows }));
  if (options.afterPromote) await options.afterPromote(promote, featureRows);
  const backtest = await timed('backtest', () =>
    runBacktestStage(deps, asOf, {
      from: options.backtestFrom,
      to: options.backtestTo,
      refitDays: options.refitDays,
      family: options.family,
      featureRows,
    }),
  );
  let predict: PredictResult | null = null;
  if (await deps.registry.resolve('champion')) {
    predict = await timed('predict', () =>
      runPredictStage(deps, asOf, { featureRows, matches: features.matches }),
    );
  } else {
    skipped.push('predict');
    deps.log.warn(
      { stage: 'predict' },
      'no champion yet: predictions not written; sign off the candidate with `matchcast registry promote`',
    );
  }
  const analytics = options.analytics ?? (await defaultAnalyticsStages());
  let simulate: unknown = null;
  let drift: unknown = null;
  if (analytics.simulate) simulate = await timed('simulate', () => analytics.simulate!(deps, asOf));
  else skipped.push('simulate');
  if (analytics.drift) drift = await timed('drift', () => analytics.drift!(deps, asOf));
  else skipped.push('drift');
  return {
    as_of: asOf.toISOString(),
    seconds,
    total_seconds: Number(((performance.now() - t0) / 1000).toFixed(3)),
    features,
    train,
    promote,
    backtest,
    predict,
    simulate,
    drift,
    skipped,
  };
}
