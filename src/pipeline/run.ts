import { PendingRepredictions } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import type { ModelFamilyName } from '../model/index.js';
import { pruneRuns, RunWriter, readPublished } from '../runs/index.js';
import { type PipelineDeps, type StageName, warnOnFailure } from './deps.js';
import { evaluateGates, evaluateInputGate } from './gates.js';
import { kickoffFeatureRows } from './horizons.js';
import { runBacktestStage } from './stage-backtest.js';
import { runFallbackStage } from './stage-fallback.js';
import { runFeaturesStage } from './stage-features.js';
import { runGoalsStage } from './stage-goals.js';
import { type PredictResult, runPredictStage } from './stage-predict.js';
import { type PromoteResult, runPromoteStage } from './stage-promote.js';
import { runTrainStage } from './stage-train.js';

/** The analysis stages of src/analytics, behind a port so the pipeline does not depend on their options. */
export interface AnalyticsStages {
  simulate?: (deps: PipelineDeps, asOf: Date) => Promise<unknown>;
  drift?: (deps: PipelineDeps, asOf: Date) => Promise<unknown>;
  performance?: (deps: PipelineDeps, asOf: Date) => Promise<unknown>;
  /** Appends the predictions of published run `publicationId` to the served log: only after publication. */
  served?: (
    deps: PipelineDeps,
    asOf: Date,
    predict: PredictResult,
    featureRows: FeatureRow[],
    publicationId: string,
  ) => Promise<unknown>;
}

/** The default analysis stages, loaded on demand from src/analytics. */
export async function defaultAnalyticsStages(): Promise<AnalyticsStages> {
  const analytics = await import('../analytics/index.js');
  return {
    simulate: async (deps, asOf) => {
      const roi = await analytics.runSimulateStage(deps, { asOf });
      // Goals markets: same edge rule and baselines, its own CSV.
      await analytics.runGoalsSimulateStage(deps, { asOf });
      return roi;
    },
    drift: (deps, asOf) => analytics.runDriftStage(deps, { asOf }),
    performance: (deps, asOf) => analytics.runPerformanceStage(deps, { asOf }),
    served: (deps, asOf, predict, featureRows, publicationId) =>
      analytics.recordServedPredictions(deps.store, predict.predictionRows, {
        servedAt: asOf,
        publicationId,
        featureRows,
      }),
  };
}

export interface RunOptions {
  family?: ModelFamilyName;
  /** The walk-forward window of the backtest, fallback and goals stages (`walkForwardWindow`). */
  backtestFrom?: Date;
  backtestTo?: Date;
  refitDays?: number;
  /** Runs before `features` (ingest when `--source` is given). */
  ingest?: () => Promise<unknown>;
  analytics?: AnalyticsStages;
  /** Runs between promote and predict; `bootstrapFirstRun` signs off the first champion here. */
  afterPromote?: (promote: PromoteResult, featureRows: FeatureRow[], runDeps?: PipelineDeps) => Promise<void>;
  /** Publish even when a gate fails; recorded in the run and the history. */
  force?: boolean;
  /** Who runs it (run record and history). Default `<user>@<host>`. */
  actor?: string;
}

export type RunResult = Awaited<ReturnType<typeof runPipeline>>;

/** The named fields of a stage's result, for its figures in the run record. */
const pick = <T, K extends keyof T>(r: T, ...keys: K[]) => Object.fromEntries(keys.map((k) => [k, r[k]]));

/**
 * `pipeline run`: (ingest) → the stages in `STAGE_NAMES` order → gates → publish. Only the publish changes
 * what is served; a failure marks the run failed, a failed gate rejected.
 */
export async function runPipeline(deps: PipelineDeps, asOf: Date, options: RunOptions = {}) {
  const seconds: Record<string, number> = {};
  const skipped: string[] = [];
  const t0 = performance.now();
  const since = (t: number) => Number(((performance.now() - t) / 1000).toFixed(3));
  async function timed<T>(name: StageName | 'ingest', fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    deps.log.debug({ stage: name }, `${name} started`);
    const result = await fn();
    seconds[name] = since(t);
    deps.log.info({ stage: name, seconds: seconds[name] }, `${name} finished`);
    return result;
  }
  if (options.ingest) await timed('ingest', options.ingest);
  // Everything below writes under runs/<run_id>/ only; what is served changes at `publish`, once.
  const base = deps;
  const run = await RunWriter.begin(base, { kind: 'full', asOf, log: base.log, actor: options.actor });
  try {
    return await writeRun({ ...base, store: run.store, run }, run);
  } catch (err) {
    if (!isMatchcastError(err, 'MC_ERR_GATE_FAILED')) await run.fail(err);
    throw err;
  }

  async function writeRun(deps: PipelineDeps, run: RunWriter) {
    const window = { from: options.backtestFrom, to: options.backtestTo, refitDays: options.refitDays };
    const recorded = async <T>(
      name: StageName,
      fn: () => Promise<T>,
      figures: (r: T) => Record<string, unknown>,
    ) => {
      const result = await timed(name, fn);
      await run.recordStage(name, seconds[name] ?? null, figures(result));
      return result;
    };
    const features = await recorded(
      'features',
      () => runFeaturesStage(deps, asOf),
      (r) => pick(r, 'rows', 'labelled', 'future'),
    );
    const featureRows = features.featureRows;
    // Input gate: an empty or wrong database is refused by name here (exit 3), not failed inside train.
    const input = evaluateInputGate(featureRows, asOf, await deps.registry.resolve('champion'));
    if (!input.passed) {
      if (!options.force) await run.refuse([input], 'train');
      deps.log.warn(
        { gate: input.name, figures: input.figures },
        `--force past the input gate: ${input.message}`,
      );
    }
    const train = await recorded(
      'train',
      () => runTrainStage(deps, asOf, { family: options.family, featureRows }),
      (r) => ({
        version: r.version.version,
        model_run_id: r.version.run_id,
        log_loss: r.version.metrics.log_loss,
      }),
    );
    const promote = await recorded(
      'promote',
      () => runPromoteStage(deps, { featureRows }),
      (r) => ({ ...r }),
    );
    if (options.afterPromote) await options.afterPromote(promote, featureRows, deps);
    const backtest = await recorded(
      'backtest',
      async () =>
        runBacktestStage(deps, asOf, {
          ...window,
          family: options.family,
          featureRows,
          // The kick-off horizon, measured beside the early one (never served).
          kickoffFeatureRows: await kickoffFeatureRows(
            { db: deps.db, store: deps.run?.base ?? deps.store },
            features.matches,
            asOf,
          ),
        }),
      (r) => ({
        ...pick(r, 'rows', 'folds', 'from', 'to'),
        ...r.metrics,
        early_gap: r.horizons.early.overall.log_loss_gap,
        kickoff_gap: r.horizons.kickoff?.overall.log_loss_gap ?? null,
      }),
    );
    const fallback = await recorded(
      'fallback',
      () => runFallbackStage(deps, asOf, featureRows, window),
      (r) => ({
        version: r.version.version,
        log_loss: r.log_loss,
        folds: r.folds,
        rows: r.backtestRows.length,
      }),
    );
    const goals = await recorded(
      'goals',
      () => runGoalsStage(deps, asOf, { ...window, matches: features.matches }),
      (r) => (r ? { version: r.version, rows: r.rows, folds: r.folds } : { skipped: true }),
    );
    let predict: PredictResult | null = null;
    if (await deps.registry.resolve('champion')) {
      predict = await recorded(
        'predict',
        () =>
          runPredictStage(deps, asOf, {
            featureRows,
            matches: features.matches,
            fallback: {
              version: fallback.version,
              model: fallback.model,
              backtest: new Map(fallback.backtestRows.map((r) => [r.match_id, r])),
            },
          }),
        (r) =>
          pick(r, 'rows', 'champion_rows', 'backtest_rows', 'omitted', 'champion_version', 'champion_run_id'),
      );
    } else {
      // Never serve an earlier run's predictions beside this run's features.
      run.drop('predictions');
      skipped.push('predict');
      deps.log.warn(
        { stage: 'predict' },
        'no champion yet: predictions not written; sign off the candidate with `matchcast registry promote`',
      );
    }
    const analytics = options.analytics ?? (await defaultAnalyticsStages());
    const withLoaded = { ...deps, loaded: { matches: features.matches, featureRows } };
    // An analysis stage this build lacks is listed as skipped; performance writes no run record stage.
    const analysis = async (name: 'simulate' | 'drift' | 'performance') => {
      const fn = analytics[name];
      if (!fn) {
        skipped.push(name);
        return null;
      }
      return name === 'performance'
        ? timed(name, () => fn(withLoaded, asOf))
        : recorded(
            name,
            () => fn(withLoaded, asOf),
            () => ({}),
          );
    };
    const simulate = await analysis('simulate');
    const drift = await analysis('drift');
    const realised = await analysis('performance');
    const tGates = performance.now();
    const gates = await evaluateGates(
      run,
      await readPublished(base.db),
      {
        featureRows,
        predictionRows: predict ? predict.predictionRows : null,
        backtestRows: backtest.backtestRows,
      },
      { maxRowDrop: deps.config.gateMaxRowDrop, asOf },
    );
    seconds.gates = since(tGates);
    const published = await run.publish({ gates, force: options.force });
    // The run re-predicted every match from the data as it stood when it began.
    await new PendingRepredictions(deps.db)
      .clearBefore(new Date(run.record.created_at))
      .catch(warnOnFailure(deps.log, 'pending re-predictions not cleared'));
    const retention = pruneRuns(base, deps.config.runsKeep, deps.log);
    const pruned = (await retention.catch(warnOnFailure(deps.log, 'run retention failed'))) ?? [];
    // After publication: these predictions are now the served ones.
    if (predict && analytics.served) await analytics.served(base, asOf, predict, featureRows, run.runId);
    return {
      as_of: asOf.toISOString(),
      seconds,
      total_seconds: since(t0),
      features,
      train,
      promote,
      backtest,
      goals,
      predict,
      simulate,
      drift,
      performance: realised,
      skipped,
      run_id: run.runId,
      gates,
      published,
      pruned,
    };
  }
}
