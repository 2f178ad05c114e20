import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  type ExplainInputs,
  explainServed,
  PublishedCache,
  type ServedModel,
} from '../../analytics/index.js';
import { MatchcastError } from '../../domain/index.js';
import { featureRowsFromParquet } from '../../features/index.js';
import { deserializeModel } from '../../model/index.js';
import { createRegistry, type ModelRegistry } from '../../registry/index.js';
import { readArtifact } from '../../runs/index.js';
import {
  EXAMPLE_EXPLANATION,
  Explanation,
  errorResponses,
  MatchIdParams,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { analystData } from './analyst-data.js';

/** Models are immutable per run id; a handful covers the champion, the fallback and the folds. */
const MAX_CACHED_MODELS = 64;

/** `GET /predict/explain/{match_id}`: the served 1X2 prediction by feature group, for the model that made it. */
export async function explainRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  // The pipeline's fallback stage registers under this name (pipeline/stage-fallback.ts fallbackModelName).
  const fallback = createRegistry(
    { db: ctx.db, store: ctx.store },
    { modelName: `${ctx.config.modelName}-market-free` },
  );
  const cache = new Map<string, Promise<ServedModel | null>>();
  // Read again when a run is published (not held by the analyst rows, which stay small).
  const featureRows = new PublishedCache(ctx.db, async () => {
    const obj = await readArtifact(ctx, 'features');
    const rows = obj ? await featureRowsFromParquet(obj.body) : [];
    return new Map(rows.map((r) => [r.match_id, r]));
  });
  const inputs: ExplainInputs = {
    async knownMatch(matchId) {
      const rows = await ctx.db.query('SELECT 1 FROM matches WHERE id = $1', [matchId]);
      return rows.length > 0;
    },
    features: async (matchId) => (await featureRows.get()).get(matchId),
  };

  async function fromVersion(registry: ModelRegistry, runId: string): Promise<ServedModel | null> {
    const versions = await registry.listVersions({ includeFailed: true });
    const v = versions.find((x) => x.run_id === runId);
    if (!v) return null;
    const model = deserializeModel((await registry.loadArtifact(v)).toString('utf8'));
    return {
      model,
      model_name: registry.modelName,
      model_version: v.version,
      training_cutoff: v.training_cutoff,
    };
  }

  async function fromFold(registry: ModelRegistry, runId: string): Promise<ServedModel | null> {
    const run = await registry.getRun(runId);
    if (!run) return null;
    if (!run.model) {
      throw new MatchcastError(
        'MC_ERR_NO_EXPLANATION',
        `walk-forward fold ${runId} was recorded without its model (before fold models were kept): rerun \`matchcast pipeline run\``,
      );
    }
    return {
      model: deserializeModel(run.model),
      model_name: registry.modelName,
      model_version: null,
      training_cutoff: run.training_cutoff,
    };
  }

  async function find(stage: string, runId: string): Promise<ServedModel | null> {
    if (stage === 'backtest')
      return (await fromFold(ctx.registry, runId)) ?? (await fromFold(fallback, runId));
    return fromVersion(stage === 'fallback' ? fallback : ctx.registry, runId);
  }

  const lookup = (stage: string, runId: string): Promise<ServedModel | null> => {
    const key = `${stage}:${runId}`;
    let hit = cache.get(key);
    if (!hit) {
      if (cache.size >= MAX_CACHED_MODELS) cache.delete(cache.keys().next().value as string);
      hit = find(stage, runId);
      cache.set(key, hit);
      // A failed load (store down) is tried again next time, not remembered.
      hit.catch(() => cache.delete(key));
    }
    return hit;
  };

  app.get(
    '/predict/explain/:match_id',
    route('predict', {
      summary:
        'Why the served prediction says what it says: each feature group’s contribution to each outcome’s score, the baseline, and the market’s de-margined view',
      description:
        'Softmax (multinomial logit): score_k = baseline_k + offset_k + Σ groups[].scores_k and p = softmax(score). Ordered logit: η = Σ groups[].latent, P(away) = σ(c₁ − η), P(home) = 1 − σ(c₂ − η). The model is the one that produced the served row: the champion, the market-free fallback or the walk-forward fold.',
      params: MatchIdParams,
      response: {
        200: respond(Explanation, 'The served prediction explained', [EXAMPLE_EXPLANATION]),
        ...errorResponses('MC_ERR_MATCH_NOT_FOUND', 'MC_ERR_NO_EXPLANATION'),
      },
    }),
    async (request) => explainServed(await analystData(ctx), inputs, request.params.match_id, lookup),
  );
}
