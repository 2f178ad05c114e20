import type { Config } from '../config.js';
import {
  checkedProbabilities,
  type ErrorCode,
  isMatchcastError,
  isServableStage,
  MatchcastError,
  type Probabilities,
  predictedClass,
  type ServableStage,
} from '../domain/index.js';
import { hasNoOdds } from '../features/index.js';
import {
  GOAL_INPUTS_VERSION,
  type GoalsModel,
  matchMarkets,
  openingMeans,
  predictGoals,
} from '../model/index.js';
import type {
  ModelInfoResult,
  PredictMarketsResult,
  PredictMatchResult,
  TaskRunner,
  WorkerModelMeta,
} from '../queue/index.js';
import type { ModelVersion } from '../registry/index.js';
import { type FeatureSnapshot, FeatureTable } from './feature-table.js';
import { GoalsTable, oddsRecordAt, predictionTimeOf } from './goals-table.js';
import { ModelSlots } from './model-slots.js';
import type { LoadedModel, WorkerDeps, WorkerRegistry } from './types.js';

/** The task handlers of a worker process (or thread), with their loaded state. */
interface WorkerRuntime extends TaskRunner {
  predictMatch(payload: unknown): Promise<PredictMatchResult>;
  /** `predict_markets`: the goals champion's markets of one match, point-in-time. */
  predictMarkets(payload: unknown): Promise<PredictMarketsResult>;
  modelInfo(payload: unknown): Promise<ModelInfoResult>;
}

function stageOf(payload: Record<string, unknown>): ServableStage {
  const stage = payload.stage ?? 'champion';
  if (typeof stage !== 'string' || !isServableStage(stage))
    throw new MatchcastError('MC_ERR_BAD_STAGE', `Unknown stage ${String(stage)}`);
  return stage;
}

function asObject(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null)
    throw new MatchcastError('MC_ERR_VALIDATION', 'Bad task payload');
  return payload as Record<string, unknown>;
}

/** The payload's `match_id` (an integer) and the run id the API resolved, when it sent one. */
function matchPayload(payload: unknown): { p: Record<string, unknown>; matchId: number; runId?: string } {
  const p = asObject(payload);
  const matchId = p.match_id;
  if (typeof matchId !== 'number' || !Number.isInteger(matchId))
    throw new MatchcastError('MC_ERR_VALIDATION', 'match_id must be an integer');
  return { p, matchId, runId: typeof p.run_id === 'string' ? p.run_id : undefined };
}

function meta(model: LoadedModel, modelName: string): WorkerModelMeta {
  return {
    model_name: modelName,
    version: model.version.version,
    stage: model.stage,
    run_id: model.version.run_id,
    loaded_at: model.loadedAt,
  };
}

const notInFeatures = (matchId: number) =>
  new MatchcastError('MC_ERR_MATCH_NOT_FOUND', `Match ${matchId} is not in the features file`);

/** The class and the probabilities fields of an answer. */

function scored(proba: Probabilities) {
  return {
    predicted_class: predictedClass(proba),
    probabilities: { home_win: proba[0], draw: proba[1], away_win: proba[2] },
  };
}

/** The fingerprint rule of {@link scoreOutOfSample}, for any model (champion, challenger, fallback). */
function checkFingerprint(model: LoadedModel, label: string, snap: FeatureSnapshot): void {
  const want = model.version.feature_fingerprint;
  if (want && snap.fingerprint && want !== snap.fingerprint) {
    throw new MatchcastError(
      'MC_ERR_FEATURES_MISMATCH',
      `${label} v${model.version.version} was trained on features ${want}, the served run ${snap.runId} has ${snap.fingerprint}; promote a model trained on them or roll the run back`,
    );
  }
}

/**
 * Null when the model may score the row; a match predicted before its training cut-off gets the served
 * run's walk-forward row instead (champion only: that refits the champion's recipe), else a 409.
 */
function scoreOutOfSample(
  model: LoadedModel,
  stage: ServableStage,
  matchId: number,
  row: Record<string, unknown>,
  snap: FeatureSnapshot,
): Pick<
  PredictMatchResult,
  'predicted_class' | 'probabilities' | 'model_run_id' | 'prediction_source' | 'training_cutoff'
> | null {
  checkFingerprint(model, stage, snap);
  const start = predictionTimeOf(row);
  const cutoff = new Date(model.version.training_cutoff);
  if (Number.isNaN(start.getTime()) || Number.isNaN(cutoff.getTime()) || start >= cutoff) return null;
  const b = stage === 'champion' ? snap.backtest.get(matchId) : undefined;
  if (!b || b.training_cutoff > start) {
    throw new MatchcastError(
      'MC_ERR_NOT_OUT_OF_SAMPLE',
      stage === 'champion'
        ? `Match ${matchId} is predicted before the champion's training cut-off (${cutoff.toISOString()}) and the served run has no walk-forward row for it`
        : `Match ${matchId} is predicted before the ${stage}'s training cut-off (${cutoff.toISOString()}): it may have trained on it, and only the champion has a walk-forward backtest`,
    );
  }
  return {
    ...scored(checkedProbabilities(b.proba, `walk-forward row of match ${matchId}`)),
    model_run_id: b.model_run_id,
    prediction_source: 'walk_forward_backtest',
    training_cutoff: b.training_cutoff.toISOString(),
  };
}

/** Builds the task handlers over `deps`; alias and features refresh intervals default to 3 s and 5 s. */
export function createWorkerRuntime(
  deps: WorkerDeps,
  options: Partial<Pick<Config, 'aliasRefreshMs' | 'viewRefreshMs'>> = {},
): WorkerRuntime {
  const slots = <P>(registry: WorkerRegistry, load: (v: ModelVersion) => Promise<P>, missing: ErrorCode) =>
    new ModelSlots(registry, load, options.aliasRefreshMs ?? 3000, deps.log, missing);
  // An unassigned stage reaches a worker only from an API that could not read the registry: 400 as
  // that API would answer (spec §7).
  const models = slots(deps.registry, deps.loadPredictor, 'MC_ERR_BAD_STAGE');
  const fallbackModels = slots(deps.fallbackRegistry, deps.loadPredictor, 'MC_ERR_MODEL_UNAVAILABLE');
  const goalsModels = slots(deps.goalsRegistry, deps.loadGoalsModel, 'MC_ERR_GOALS_MODEL_UNAVAILABLE');
  /** The market-free fallback for a row without odds predicted at or after its cut-off; null: none. */
  async function fallbackFor(row: Record<string, unknown>, snap: FeatureSnapshot) {
    if (!hasNoOdds(row)) return null;
    // No fallback registered yet (e.g. a registry older than the fallback model): not an error of this match.
    const fb = await fallbackModels.get('champion').catch((err: unknown) => {
      if (isMatchcastError(err, 'MC_ERR_MODEL_UNAVAILABLE')) return null;
      throw err;
    });
    if (!fb) return null;
    checkFingerprint(fb, 'market-free fallback', snap);
    const start = predictionTimeOf(row);
    const cutoff = new Date(fb.version.training_cutoff);
    if (Number.isNaN(start.getTime()) || Number.isNaN(cutoff.getTime()) || start < cutoff) return null;
    return fb;
  }
  const goalsTable = new GoalsTable(deps.db, deps.store, deps.log);
  /** Rating parameters of the last goals answer: set once this worker serves live markets. */
  let goalsRating: GoalsModel['rating'] | null = null;
  const features = new FeatureTable(
    deps.db,
    deps.store,
    deps.parseFeatures,
    options.viewRefreshMs ?? 5000,
    deps.log,
    // A worker that serves live markets builds the new run's goal inputs at once, in the background,
    // so the first markets call after a publication does not pay them (≈ 4 s CPU on the real data).
    (snap) => {
      if (goalsRating) goalsTable.get(snap, goalsRating).catch(() => undefined);
    },
  );

  const runtime: WorkerRuntime = {
    async predictMatch(payload) {
      const { p, matchId, runId } = matchPayload(payload);
      const stage = stageOf(p);
      const [model, { snap, row }] = await Promise.all([models.get(stage, runId), features.lookup(matchId)]);
      if (!row) throw notInFeatures(matchId);
      const base = {
        match_id: matchId,
        model_version: `${stage}/v${model.version.version}`,
        model_stage: stage,
        model: meta(model, deps.registry.modelName),
        features_run_id: snap.runId,
      };
      const fb = await fallbackFor(row, snap);
      if (fb) checkFingerprint(model, stage, snap);
      else {
        const answer = scoreOutOfSample(model, stage, matchId, row, snap);
        if (answer) return { ...base, ...answer, inference_ms: 0 };
      }
      const used = fb ?? model;
      const started = performance.now();
      const label = fb
        ? `${fb.version.model_name} v${fb.version.version}`
        : `${stage} v${model.version.version}`;
      const proba = checkedProbabilities(used.predict(row), label);
      return {
        ...base,
        // model_stage stays the requested alias (spec 2.3); the version and run are the fallback's.
        ...(fb && {
          model_version: `${stage}/v${fb.version.version}`,
          model: meta(fb, fb.version.model_name),
        }),
        ...scored(proba),
        model_run_id: used.version.run_id,
        inference_ms: performance.now() - started,
        prediction_source: fb ? ('market_free_fallback' as const) : ('model' as const),
        training_cutoff: used.version.training_cutoff,
        ...(fb && { stage_run_id: model.version.run_id }),
      };
    },
    async predictMarkets(payload) {
      const { matchId, runId } = matchPayload(payload);
      const [model, { snap, row }] = await Promise.all([
        goalsModels.get('champion', runId),
        features.lookup(matchId),
      ]);
      if (!row) throw notInFeatures(matchId);
      const gm = model.predict;
      if (gm.inputs_version !== GOAL_INPUTS_VERSION)
        throw new MatchcastError(
          'MC_ERR_FEATURES_MISMATCH',
          `goals v${model.version.version} was trained on goal inputs v${gm.inputs_version}, this worker builds v${GOAL_INPUTS_VERSION}`,
        );
      const started = performance.now();
      const table = await goalsTable.get(snap, gm.rating);
      goalsRating = gm.rating;
      const at = predictionTimeOf(row);
      const cutoff = new Date(model.version.training_cutoff);
      const base = {
        model_version: `goals/v${model.version.version}`,
        goals_run_id: model.version.run_id,
        prediction_time: at.toISOString(),
        features_run_id: snap.runId,
      };
      const answer = <S>(markets: ReturnType<typeof matchMarkets>, prediction_source: S) => ({
        ...base,
        markets,
        prediction_source,
        inference_ms: performance.now() - started,
      });
      // Same rule as predict_match: a match predicted before the cut-off would see results not known
      // then, so the answer is the served run's walk-forward row (what the precomputed route serves), or 409.
      if (!(at >= cutoff)) {
        const b = table.backtest.get(matchId);
        if (!b || b.training_cutoff > at)
          throw new MatchcastError(
            'MC_ERR_NOT_OUT_OF_SAMPLE',
            `Match ${matchId} is predicted before the goals model's training cut-off (${cutoff.toISOString()}) and the served run has no walk-forward goals row for it`,
          );
        return answer(matchMarkets(b), 'walk_forward_backtest' as const);
      }
      const input = table.inputs.get(matchId);
      if (!input)
        throw new MatchcastError('MC_ERR_MATCH_NOT_FOUND', `Match ${matchId} has no goal inputs in this run`);
      // Its own prices only as observed by the prediction time; ratings as the goals stage builds them.
      const rec = oddsRecordAt(table, matchId, at);
      const g = predictGoals(gm, { ...input, open: openingMeans(rec) });
      const shown = (latest?: number | null, close?: number | null, open?: number | null) =>
        latest ?? close ?? open ?? null;
      const markets = matchMarkets({
        match_id: matchId,
        expected_home_goals: g.lh,
        expected_away_goals: g.la,
        rho: g.rho,
        model_stage: 'champion',
        model_run_id: model.version.run_id,
        training_cutoff: cutoff,
        odd_over25: shown(rec?.odd_over25, rec?.close_over25, rec?.open_over25),
        odd_under25: shown(rec?.odd_under25, rec?.close_under25, rec?.open_under25),
        odd_btts_yes: shown(rec?.odd_btts_yes, rec?.close_btts_yes, rec?.open_btts_yes),
        odd_btts_no: shown(rec?.odd_btts_no, rec?.close_btts_no, rec?.open_btts_no),
      });
      return answer(markets, 'model' as const);
    },
    async modelInfo(payload) {
      const stage = stageOf(asObject(payload));
      const model = await models.get(stage);
      const v = model.version;
      return {
        model_name: deps.registry.modelName,
        stage,
        version: v.version,
        run_id: v.run_id,
        metrics: v.metrics,
        params: v.params,
        feature_names: v.feature_names,
        created_at: v.created_at,
        model: meta(model, deps.registry.modelName),
      };
    },
    run(name, payload) {
      if (name === 'predict_match') return runtime.predictMatch(payload);
      if (name === 'model_info') return runtime.modelInfo(payload);
      if (name === 'predict_markets') return runtime.predictMarkets(payload);
      return Promise.reject(new MatchcastError('MC_ERR_TASK_FAILED', `Unknown task ${String(name)}`));
    },
    async checkRegistry() {
      try {
        await deps.registry.aliases();
      } catch (err) {
        throw new MatchcastError(
          'MC_ERR_STORE_UNAVAILABLE',
          `The model registry cannot be read, so the worker cannot start: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
    },
    loadedModels: () => models.loaded(),
  };
  return runtime;
}
