import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { predictionCacheKey } from '../../cache/index.js';
import { isMatchcastError, isServableStage, MatchcastError, type ServableStage } from '../../domain/index.js';
import {
  inferenceDuration,
  modelInfo,
  modelRegisteredAt,
  predictionConfidence,
  predictionDuration,
  predictionRequestsTotal,
  predictionTimeoutsTotal,
} from '../../metrics.js';
import type {
  ModelInfoResult,
  PredictMarketsResult,
  PredictMatchResult,
  TaskName,
  TaskOutcome,
  TaskQueue,
  WorkerModelMeta,
} from '../../queue/index.js';
import type { ModelVersion, Registry } from '../../registry/index.js';
import {
  AsyncAccepted,
  AsyncRequest,
  EXAMPLE_ASYNC_ACCEPTED,
  EXAMPLE_LIVE,
  EXAMPLE_MODEL_INFO,
  errorResponses,
  LivePrediction,
  MatchIdParams,
  ModelInfo,
  respond,
  route,
  StageQuery,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';

type CachedPrediction = Omit<PredictMatchResult, 'inference_ms' | 'model'>;
type TaskPayload = Parameters<TaskQueue['submit']>[1];
/** What a {@link runTask} can fail with, in the order the OpenAPI entries list them. */
export const TASK_ERRORS = [
  'MC_ERR_TASK_FAILED',
  'MC_ERR_BROKER_UNAVAILABLE',
  'MC_ERR_QUEUE_FULL',
  'MC_ERR_TASK_TIMEOUT',
  'MC_ERR_TASK_EXPIRED',
] as const;

/** Alias → version; with no registry answer yet, `version` is null and a worker serves its own model. */
export class AliasCache {
  private aliases: Partial<Record<string, string>> | null = null;
  private fetchedAt = 0;
  private inflight: Promise<void> | null = null;
  private readonly versions = new Map<string, ModelVersion>();

  constructor(
    private readonly registry: Registry,
    private readonly refreshMs: number,
  ) {}

  /** The version `stage` points at; MC_ERR_BAD_STAGE when the stage is not servable or not assigned. */
  async resolve(stage: string | undefined): Promise<{ stage: ServableStage; version: ModelVersion | null }> {
    const s = stage ?? 'champion';
    if (!isServableStage(s)) {
      throw new MatchcastError('MC_ERR_BAD_STAGE', `Stage "${s}" is not one of champion, challenger`);
    }
    if (!this.aliases || Date.now() - this.fetchedAt >= this.refreshMs) await this.refresh();
    if (!this.aliases) return { stage: s, version: null };
    const number = this.aliases[s];
    if (number === undefined) {
      throw new MatchcastError('MC_ERR_BAD_STAGE', `No model version has the alias "${s}"`);
    }
    let version = this.versions.get(number);
    if (!version) {
      // Only an unreachable store defers to the workers; a corrupt version document is an error.
      const found = await this.registry.getVersion(number).catch((err: unknown) => {
        if (isMatchcastError(err, 'MC_ERR_STORE_UNAVAILABLE')) return undefined;
        throw err;
      });
      if (found === undefined) return { stage: s, version: null };
      if (!found) throw new MatchcastError('MC_ERR_BAD_STAGE', `Alias "${s}" points at a missing version`);
      version = found;
      this.versions.set(number, version);
    }
    return { stage: s, version };
  }

  private refresh(): Promise<void> {
    this.inflight ??= (async () => {
      try {
        this.aliases = await this.registry.aliases();
      } catch {
        // Keep the last known aliases (none yet: resolve defers to the workers); try again after a period.
      }
      this.fetchedAt = Date.now();
    })().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }
}

type ModelLabels = { model_name: string; version: string; stage: string };
const loadedModels = new Map<string, ModelLabels>();
/** When a worker result last showed the stage's model loaded (Unix ms). */
const seenLoadedAt = new Map<string, number>();
/** The sample last removed per stage because its alias stopped resolving (see forgetRegisteredModel). */
const unaliased = new Map<string, ModelLabels>();

const sameModel = (a: ModelLabels, b: { model_name: string; version: string }) =>
  a.model_name === b.model_name && a.version === b.version;

/** Worker-side metrics (spec §4.2) from a worker's answer; a stage whose alias was removed stays gone. */
export function recordWorkerModel(meta: WorkerModelMeta | undefined): void {
  if (!meta) return;
  modelRegisteredAt.labels(meta.model_name).set(meta.loaded_at);
  const removed = unaliased.get(meta.stage);
  if (removed && sameModel(removed, meta)) return;
  unaliased.delete(meta.stage);
  const previous = loadedModels.get(meta.stage);
  const labels = { model_name: meta.model_name, version: meta.version, stage: meta.stage };
  if (previous && !sameModel(previous, meta)) modelInfo.labels(previous).set(0);
  // Even over the sampler's 0: the answer proves a worker has it now; the next sample may be 15 s away.
  modelInfo.labels(labels).set(1);
  loadedModels.set(meta.stage, labels);
  seenLoadedAt.set(meta.stage, Date.now());
}

/** Samples `model_info` without a live call: 1 when a worker reports the version loaded, else 0. */
export function sampleRegisteredModel(labels: ModelLabels, loaded: boolean): void {
  unaliased.delete(labels.stage);
  const previous = loadedModels.get(labels.stage);
  if (previous && !sameModel(previous, labels)) {
    modelInfo.labels(previous).set(0);
    seenLoadedAt.delete(labels.stage);
  }
  // A result seen in the last 30 s outranks a presence record that has not caught up yet.
  const recent = Date.now() - (seenLoadedAt.get(labels.stage) ?? 0) < 30_000;
  modelInfo.labels(labels).set(loaded || recent ? 1 : 0);
  loadedModels.set(labels.stage, labels);
}

/** The stage's alias no longer resolves: no `model_info` sample claims a model the API refuses. */
export function forgetRegisteredModel(stage: string): void {
  const previous = loadedModels.get(stage);
  if (!previous) return;
  modelInfo.remove(previous);
  loadedModels.delete(stage);
  seenLoadedAt.delete(stage);
  unaliased.set(stage, previous);
}

/** Inference time, confidence and model_info from every task result of this process (spec §4.2). */
function recordTaskOutcome(name: TaskName, outcome: TaskOutcome): void {
  if (!outcome.ok || typeof outcome.value !== 'object' || outcome.value === null) return;
  if (name === 'predict_match') recordPrediction(outcome.value as PredictMatchResult);
  else if (name === 'model_info') recordWorkerModel((outcome.value as ModelInfoResult).model);
  else if (name === 'predict_markets') {
    // Goals markets: time in the model only; confidence and model_info are the 1X2 model's.
    const ms = (outcome.value as PredictMarketsResult).inference_ms;
    if (typeof ms === 'number') inferenceDuration.observe(ms / 1000);
  }
}

function recordPrediction(result: PredictMatchResult): void {
  if (!result.probabilities) return;
  if (typeof result.inference_ms === 'number') inferenceDuration.observe(result.inference_ms / 1000);
  for (const k of ['home_win', 'draw', 'away_win'] as const)
    predictionConfidence.labels(k).observe(result.probabilities[k]);
  recordWorkerModel(result.model);
}

/** Runs a sync task with the caller's deadline (a worker that picks it up later skips it). */
export async function runTask<T>(ctx: AppContext, name: TaskName, payload: TaskPayload): Promise<T> {
  const taskId = await ctx.queue.submit(name, payload, {
    expiresAt: Date.now() + ctx.config.predictTimeoutMs,
  });
  if (name !== 'model_info') predictionRequestsTotal.labels('sync').inc();
  try {
    return await ctx.queue.wait<T>(taskId, ctx.config.predictTimeoutMs);
  } catch (err) {
    if (isMatchcastError(err, 'MC_ERR_TASK_TIMEOUT')) predictionTimeoutsTotal.inc();
    throw err;
  }
}

/** A live answer: a cache hit among `keys`, else `compute`'s answer and the key it may be cached under. */
export async function cachedAnswer<T extends object>(
  ctx: AppContext,
  started: number,
  keys: readonly string[],
  compute: () => Promise<[body: T, cacheKey: string | undefined]>,
): Promise<T & { cached: boolean }> {
  let hit: T | undefined;
  for (const key of keys) hit ??= await ctx.cache.get<T>(key);
  const answer = hit
    ? { ...hit, cached: true }
    : await compute().then(([body, cacheKey]) => {
        if (cacheKey) ctx.cache.set(cacheKey, body, ctx.config.predictionCacheTtl).catch(() => {});
        return { ...body, cached: false };
      });
  predictionDuration.observe((performance.now() - started) / 1000);
  return answer;
}

/** The live path (spec §4.8, §4.9, §4.12): dispatches to the `ml` queue; a cache hit dispatches nothing. */
export async function liveRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const aliases = new AliasCache(ctx.registry, ctx.config.aliasRefreshMs);
  // Metrics of every task outcome (sync and async) come from one listener, so none is counted twice.
  const stopRecording = ctx.queue.onOutcome(recordTaskOutcome);
  app.addHook('onClose', (_instance, done) => {
    stopRecording();
    done();
  });

  app.get(
    '/predict/model/info',
    route('predict', {
      summary: 'Metadata of the model behind a stage, through the task queue',
      querystring: StageQuery,
      response: {
        200: respond(ModelInfo, 'Metadata of the model the stage points at', [EXAMPLE_MODEL_INFO]),
        ...errorResponses('MC_ERR_BAD_STAGE', ...TASK_ERRORS),
      },
    }),
    async (request) => {
      const { stage } = await aliases.resolve(request.query.stage);
      return runTask<ModelInfoResult>(ctx, 'model_info', { stage });
    },
  );

  app.get(
    '/predict/:match_id',
    route('predict', {
      summary: 'Live prediction of one match through the task queue (cached per model run)',
      params: MatchIdParams,
      querystring: StageQuery,
      response: {
        200: respond(LivePrediction, "Probabilities of the match from the stage's model", [EXAMPLE_LIVE]),
        ...errorResponses(
          'MC_ERR_BAD_STAGE',
          'MC_ERR_MATCH_NOT_FOUND',
          'MC_ERR_NOT_OUT_OF_SAMPLE',
          ...TASK_ERRORS,
          'MC_ERR_FEATURES_MISMATCH',
        ),
      },
    }),
    async (request) => {
      const started = performance.now();
      const matchId = request.params.match_id;
      const { stage, version } = await aliases.resolve(request.query.stage);
      const runId = version?.run_id;
      // Keyed by what was asked: match, model run, stage and the features snapshot this API serves;
      // answers of the market-free fallback (a match without odds) live under their own key.
      const featuresRunId = ctx.views.servedRun()?.run_id ?? null;
      const keys = runId
        ? [stage, `${stage}+market-free`].map((s) =>
            predictionCacheKey(matchId, runId, { stage: s, featuresRunId }),
          )
        : [];
      return cachedAnswer<CachedPrediction>(ctx, started, keys, async () => {
        const payload = { match_id: matchId, stage, run_id: runId };
        const result = await runTask<PredictMatchResult>(ctx, 'predict_match', payload);
        const body: CachedPrediction = {
          match_id: result.match_id,
          predicted_class: result.predicted_class,
          probabilities: result.probabilities,
          model_version: result.model_version,
          model_stage: result.model_stage,
          model_run_id: result.model_run_id,
        };
        if (result.prediction_source) body.prediction_source = result.prediction_source;
        if (result.training_cutoff) body.training_cutoff = result.training_cutoff;
        // Cached only when the answer is exactly what the key says (this stage, this model run, these
        // features); a worker that had not yet caught up with a promotion or a publication is not cached.
        const fromFallback = result.prediction_source === 'market_free_fallback';
        const modelRun = fromFallback ? result.stage_run_id : (result.model?.run_id ?? result.model_run_id);
        const exact =
          result.model_stage === stage &&
          modelRun === runId &&
          (result.features_run_id === undefined || result.features_run_id === featuresRunId);
        return [body, exact ? keys[fromFallback ? 1 : 0] : undefined];
      });
    },
  );

  app.post(
    '/predict/async/',
    route('predict', {
      summary: 'Submit a live prediction; poll /monitoring/task_status/{task_id} for the result',
      body: AsyncRequest,
      response: {
        202: respond(AsyncAccepted, 'Accepted: poll status_url for the result', [EXAMPLE_ASYNC_ACCEPTED]),
        ...errorResponses(
          'MC_ERR_BAD_STAGE',
          'MC_ERR_BROKER_UNAVAILABLE',
          'MC_ERR_QUEUE_FULL',
          'MC_ERR_PAYLOAD_TOO_LARGE',
          'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
          'MC_ERR_INVALID_JSON',
        ),
      },
    }),
    async (request, reply) => {
      const { stage, version } = await aliases.resolve(request.body.stage);
      // Async: no deadline (the result waits RESULT_TTL for its poller); observed only for metrics.
      const taskId = await ctx.queue.submit(
        'predict_match',
        { match_id: request.body.match_id, stage, run_id: version?.run_id },
        { awaited: false },
      );
      predictionRequestsTotal.labels('async').inc();
      reply.code(202);
      return { task_id: taskId, status: 'pending' as const, status_url: `/monitoring/task_status/${taskId}` };
    },
  );
}
