import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
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
import type { ModelInfoResult, PredictMatchResult, WorkerModelMeta } from '../../queue/index.js';
import type { ModelVersion, Registry } from '../../registry/index.js';
import type { AppContext } from '../context.js';

const SECURITY = [{ ApiKeyAuth: [] }];

const StageQuery = Type.Object(
  {
    stage: Type.Optional(
      Type.String({ description: 'Registry alias: `champion` (default) or `challenger`', maxLength: 64 }),
    ),
  },
  { additionalProperties: false },
);

const ErrorBody = Type.Object({ detail: Type.Unknown(), code: Type.Optional(Type.String()) });

const Probabilities = Type.Object({ home_win: Type.Number(), draw: Type.Number(), away_win: Type.Number() });

/** Spec §2.3 plus `model_stage` (spec §2.3 traceability rule). */
export const LivePrediction = Type.Object({
  match_id: Type.Integer(),
  predicted_class: Type.Integer({ description: '0 home win, 1 draw, 2 away win' }),
  probabilities: Probabilities,
  model_version: Type.String({ description: '`<stage>/v<version>`, e.g. `champion/v3`' }),
  model_stage: Type.String({ description: 'Registry alias that served the request' }),
  model_run_id: Type.String({ description: 'Run id of the model that computed the probabilities' }),
  cached: Type.Boolean({ description: 'true when served from the prediction cache' }),
});

/** Spec §2.7. */
export const ModelInfo = Type.Object({
  model_name: Type.String(),
  stage: Type.String(),
  version: Type.String(),
  run_id: Type.String(),
  metrics: Type.Record(Type.String(), Type.Number()),
  params: Type.Record(Type.String(), Type.String()),
  feature_names: Type.Array(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 without zone, UTC' }),
});

const AsyncAccepted = Type.Object({
  task_id: Type.String(),
  status: Type.Literal('pending'),
  status_url: Type.String(),
});

type CachedPrediction = Omit<PredictMatchResult, 'inference_ms' | 'model'>;

/**
 * Alias → version, cached for `refreshMs` (config.aliasRefreshMs). Versions are immutable, so they
 * are cached by number for good. A registry that fails keeps the last known answer.
 */
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
  async resolve(stage: string | undefined): Promise<{ stage: ServableStage; version: ModelVersion }> {
    const s = stage ?? 'champion';
    if (!isServableStage(s)) {
      throw new MatchcastError('MC_ERR_BAD_STAGE', `Stage "${s}" is not one of champion, challenger`);
    }
    if (!this.aliases || Date.now() - this.fetchedAt >= this.refreshMs) await this.refresh();
    const number = this.aliases?.[s];
    if (number === undefined) {
      throw new MatchcastError('MC_ERR_BAD_STAGE', `No model version has the alias "${s}"`);
    }
    let version = this.versions.get(number);
    if (!version) {
      const found = await this.registry.getVersion(number).catch((err) => {
        throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', 'Model registry unreachable', { cause: err });
      });
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
        this.fetchedAt = Date.now();
      } catch (err) {
        if (!this.aliases) {
          throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', 'Model registry unreachable', { cause: err });
        }
        // Keep serving the last known aliases; try again after another period.
        this.fetchedAt = Date.now();
      }
    })().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }
}

const loadedModels = new Map<string, { model_name: string; version: string; stage: string }>();

/** Feeds the worker-side metrics (spec §4.2) in the API process from what a worker returned. */
export function recordWorkerModel(meta: WorkerModelMeta | undefined): void {
  if (!meta) return;
  const previous = loadedModels.get(meta.stage);
  if (!previous || previous.version !== meta.version || previous.model_name !== meta.model_name) {
    if (previous) modelInfo.labels(previous).set(0);
    const labels = { model_name: meta.model_name, version: meta.version, stage: meta.stage };
    modelInfo.labels(labels).set(1);
    loadedModels.set(meta.stage, labels);
  }
  modelRegisteredAt.labels(meta.model_name).set(meta.loaded_at);
}

function recordPrediction(result: PredictMatchResult): void {
  if (typeof result.inference_ms === 'number') inferenceDuration.observe(result.inference_ms / 1000);
  const p = result.probabilities;
  predictionConfidence.labels('home_win').observe(p.home_win);
  predictionConfidence.labels('draw').observe(p.draw);
  predictionConfidence.labels('away_win').observe(p.away_win);
  recordWorkerModel(result.model);
}

async function waitCounted<T>(ctx: AppContext, taskId: string): Promise<T> {
  try {
    return await ctx.queue.wait<T>(taskId, ctx.config.predictTimeoutMs);
  } catch (err) {
    if (isMatchcastError(err, 'MC_ERR_TASK_TIMEOUT')) predictionTimeoutsTotal.inc();
    throw err;
  }
}

/**
 * The live path (spec §4.8, §4.9, §4.12): `GET /predict/{match_id}`, `GET /predict/model/info`,
 * `POST /predict/async/`. Dispatches to the `ml` queue; a cache hit dispatches nothing.
 */
export async function liveRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const aliases = new AliasCache(ctx.registry, ctx.config.aliasRefreshMs);

  app.get<{ Querystring: { stage?: string } }>(
    '/predict/model/info',
    {
      schema: {
        tags: ['predict'],
        summary: 'Metadata of the model behind a stage, through the task queue',
        security: SECURITY,
        querystring: StageQuery,
        response: { 200: ModelInfo, 400: ErrorBody, 503: ErrorBody, 504: ErrorBody },
      },
    },
    async (request) => {
      const { stage } = await aliases.resolve(request.query.stage);
      const taskId = await ctx.queue.submit('model_info', { stage });
      const info = await waitCounted<ModelInfoResult>(ctx, taskId);
      recordWorkerModel(info.model);
      return info;
    },
  );

  app.get<{ Params: { match_id: number }; Querystring: { stage?: string } }>(
    '/predict/:match_id',
    {
      schema: {
        tags: ['predict'],
        summary: 'Live prediction of one match through the task queue (cached per model run)',
        security: SECURITY,
        params: Type.Object({ match_id: Type.Integer({ minimum: 1 }) }),
        querystring: StageQuery,
        response: {
          200: LivePrediction,
          400: ErrorBody,
          404: ErrorBody,
          500: ErrorBody,
          503: ErrorBody,
          504: ErrorBody,
        },
      },
    },
    async (request) => {
      const started = performance.now();
      const matchId = request.params.match_id;
      const { stage, version } = await aliases.resolve(request.query.stage);
      const hit = await ctx.cache.get<CachedPrediction>(predictionCacheKey(matchId, version.run_id));
      if (hit) {
        predictionDuration.observe((performance.now() - started) / 1000);
        return { ...hit, cached: true };
      }
      const taskId = await ctx.queue.submit('predict_match', {
        match_id: matchId,
        stage,
        run_id: version.run_id,
      });
      predictionRequestsTotal.labels('sync').inc();
      const result = await waitCounted<PredictMatchResult>(ctx, taskId);
      recordPrediction(result);
      const body: CachedPrediction = {
        match_id: result.match_id,
        predicted_class: result.predicted_class,
        probabilities: result.probabilities,
        model_version: result.model_version,
        model_stage: result.model_stage,
        model_run_id: result.model_run_id,
      };
      // Keyed by the run that computed it, so a result can never sit under a newer run's key.
      ctx.cache
        .set(predictionCacheKey(matchId, result.model_run_id), body, ctx.config.predictionCacheTtl)
        .catch(() => {});
      predictionDuration.observe((performance.now() - started) / 1000);
      return { ...body, cached: false };
    },
  );

  app.post<{ Body: { match_id: number; stage?: string } }>(
    '/predict/async/',
    {
      schema: {
        tags: ['predict'],
        summary: 'Submit a live prediction; poll /monitoring/task_status/{task_id} for the result',
        security: SECURITY,
        body: Type.Object(
          { match_id: Type.Integer({ minimum: 1 }), stage: Type.Optional(Type.String({ maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { 202: AsyncAccepted, 400: ErrorBody, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      const { stage, version } = await aliases.resolve(request.body.stage);
      const taskId = await ctx.queue.submit('predict_match', {
        match_id: request.body.match_id,
        stage,
        run_id: version.run_id,
      });
      predictionRequestsTotal.labels('async').inc();
      reply.code(202);
      return { task_id: taskId, status: 'pending' as const, status_url: `/monitoring/task_status/${taskId}` };
    },
  );
}
