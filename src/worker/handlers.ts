import { isServableStage, MatchcastError, predictedClass, type ServableStage } from '../domain/index.js';
import type { ModelInfoResult, PredictMatchResult, TaskName, WorkerModelMeta } from '../queue/index.js';
import { FeatureTable } from './feature-table.js';
import { ModelSlots } from './model-slots.js';
import type { LoadedModel, WorkerDeps, WorkerRuntimeOptions } from './types.js';

/** The task handlers of a worker process (or thread), with their loaded state. */
export interface WorkerRuntime {
  run(name: TaskName, payload: unknown): Promise<PredictMatchResult | ModelInfoResult>;
  predictMatch(payload: unknown): Promise<PredictMatchResult>;
  modelInfo(payload: unknown): Promise<ModelInfoResult>;
  /** Throws a clear error when the registry cannot be read (a new worker must not start blind). */
  checkRegistry(): Promise<void>;
  /** Models loaded now, by stage. */
  loadedModels(): Record<string, { version: string; run_id: string }>;
}

function stageOf(payload: Record<string, unknown>): ServableStage {
  const stage = payload.stage ?? 'champion';
  if (typeof stage !== 'string' || !isServableStage(stage)) {
    throw new MatchcastError('MC_ERR_BAD_STAGE', `Unknown stage ${String(stage)}`);
  }
  return stage;
}

function asObject(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null)
    throw new MatchcastError('MC_ERR_VALIDATION', 'Bad task payload');
  return payload as Record<string, unknown>;
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

/** Builds the handlers `predict_match` and `model_info` over the given dependencies. */
export function createWorkerRuntime(deps: WorkerDeps, options: WorkerRuntimeOptions = {}): WorkerRuntime {
  const models = new ModelSlots(deps.registry, deps.loadPredictor, options.aliasRefreshMs ?? 3000, deps.log);
  const features = new FeatureTable(
    deps.store,
    deps.parseFeatures,
    options.featuresRefreshMs ?? 5000,
    deps.log,
  );

  const runtime: WorkerRuntime = {
    async predictMatch(payload) {
      const p = asObject(payload);
      const matchId = p.match_id;
      if (typeof matchId !== 'number' || !Number.isInteger(matchId)) {
        throw new MatchcastError('MC_ERR_VALIDATION', 'match_id must be an integer');
      }
      const stage = stageOf(p);
      const [model, row] = await Promise.all([
        models.get(stage, typeof p.run_id === 'string' ? p.run_id : undefined),
        features.get(matchId),
      ]);
      if (!row)
        throw new MatchcastError('MC_ERR_MATCH_NOT_FOUND', `Match ${matchId} is not in the features file`);
      const started = performance.now();
      const proba = model.predict(row);
      const inferenceMs = performance.now() - started;
      return {
        match_id: matchId,
        predicted_class: predictedClass(proba),
        probabilities: { home_win: proba[0], draw: proba[1], away_win: proba[2] },
        model_version: `${stage}/v${model.version.version}`,
        model_stage: stage,
        model_run_id: model.version.run_id,
        inference_ms: inferenceMs,
        model: meta(model, deps.registry.modelName),
      };
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
