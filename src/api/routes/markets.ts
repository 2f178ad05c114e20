import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { predictionCacheKey } from '../../cache/index.js';
import { isMatchcastError, KEYS, MatchcastError } from '../../domain/index.js';
import { scoreMatrixRows } from '../../model/index.js';
import type { PredictMarketsResult } from '../../queue/index.js';
import { createRegistry } from '../../registry/index.js';
import { readArtifact } from '../../runs/index.js';
import {
  EXAMPLE_LIVE_MARKETS,
  EXAMPLE_MARKET_ROI,
  EXAMPLE_MATCH_MARKETS,
  errorResponses,
  MarketRoiQuery,
  MarketRoiRow,
  MarketsQuery,
  MatchIdParams,
  MatchMarkets,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { AliasCache, cachedAnswer, runTask, TASK_ERRORS } from './live.js';
import { sendBytes } from './precomputed.js';

const FILE = `${KEYS.markets.bucket}/${KEYS.markets.key}`;

/** `GET /predict/markets/{match_id}`: every goals market of the match, precomputed and served from memory. */
export async function marketsRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  // The markets are loaded by the serving views with the rest of the published run (one read per run).
  const { views } = ctx;
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const live = liveMarkets(ctx);

  app.get(
    '/predict/markets/:match_id',
    route('predict', {
      summary:
        'Goals markets of one match: expected goals, 1X2, over/under, BTTS, DNB, Asian lines, top scores',
      description:
        "A map lookup in the loaded markets file (`predictions/markets.parquet` of the published run); every figure comes from one Dixon–Coles score matrix, so over + under = 1 and the matrix reproduces its 1X2. `?matrix=true` adds the 11 × 11 score matrix. The body without the matrix is pre-serialised once per file load.\n\n`?live=true` computes the same body now through the `ml` queue (task `predict_markets`, ≤ PREDICT_TIMEOUT_MS): the worker holds the goals champion (`<MODEL_NAME>-goals`, alias `champion`) and builds the match's goal inputs point-in-time (its own prices only as observed by `prediction_time`); a match that kicked off before the champion's training cut-off gets the served run's walk-forward row or 409. Cached as `predict:{match_id}:{goals_run_id}:goals:{features_run_id}`; the answer adds `cached`, `prediction_source`, `model_version`, `prediction_time`.",
      params: MatchIdParams,
      querystring: MarketsQuery,
      response: {
        200: respond(MatchMarkets, 'The goals markets of the match', [
          EXAMPLE_MATCH_MARKETS,
          { ...EXAMPLE_MATCH_MARKETS, score_matrix: [[0.0744, 0.0804], [0.1131]] },
          EXAMPLE_LIVE_MARKETS,
        ]),
        ...errorResponses(
          'MC_ERR_MATCH_NOT_FOUND',
          'MC_ERR_PREDICTIONS_UNAVAILABLE',
          'MC_ERR_GOALS_MODEL_UNAVAILABLE',
          'MC_ERR_NOT_OUT_OF_SAMPLE',
          ...TASK_ERRORS,
          'MC_ERR_FEATURES_MISMATCH',
          'MC_ERR_STORE_UNAVAILABLE',
        ),
      },
    }),
    (request, reply) => {
      const id = request.params.match_id;
      // Live: a promise Fastify serialises; the precomputed path below stays synchronous.
      if (request.query.live === true) {
        const matrix = request.query.matrix === true;
        return live(id).then((body) => (matrix ? { ...body, score_matrix: scoreMatrixRows(body) } : body));
      }
      const s = views.status().markets;
      if (s.state !== 'loaded') {
        throw new MatchcastError(
          'MC_ERR_PREDICTIONS_UNAVAILABLE',
          s.state === 'missing'
            ? `The markets file ${FILE} does not exist yet; run \`npx matchcast pipeline run\` to produce it.`
            : `The markets file ${FILE} is not loaded yet${s.lastError ? `: ${s.lastError}` : '; retry shortly'}.`,
        );
      }
      const json = views.marketsJson(id);
      if (json === undefined)
        throw new MatchcastError('MC_ERR_MATCH_NOT_FOUND', `Match ${id} is not in the current markets file`);
      if (request.query.matrix !== true) return void sendBytes(reply, json);
      // The matrix is rare: parse the stored body rather than keep 45k market objects in memory.
      const markets = JSON.parse(json.toString('utf8')) as MatchMarkets;
      reply.send({ ...markets, score_matrix: scoreMatrixRows(markets) });
    },
  );

  // Re-read at most every roiRecheckMs, like the 1X2 ROI route (spec §4.6).
  let roi: { at: number; rows: MarketRoiRow[] } | null = null;
  app.get(
    '/predict/region-roi/markets/',
    route('predict', {
      summary: 'Flat-stake ROI per region of the goals markets (O/U 2.5, BTTS), out-of-sample',
      description:
        "Rows of `reports/roi_by_region_markets.csv`: the goals model's walk-forward rows bet with the 1X2 simulation's edge rule (EDGE_THRESHOLD) at closing prices, and its baselines. The spec's `/predict/region-roi/` is unchanged. `[]` before the first run.",
      querystring: MarketRoiQuery,
      response: {
        200: respond(Type.Array(MarketRoiRow), 'ROI rows of one market and strategy', [EXAMPLE_MARKET_ROI]),
      },
    }),
    async (request) => {
      const now = Date.now();
      if (!roi || now - roi.at >= ctx.config.roiRecheckMs) {
        const obj = await readArtifact(ctx, 'roiByRegionMarkets');
        roi = { at: now, rows: obj ? parseMarketRoiCsv(obj.body.toString('utf8')) : [] };
      }
      const market = request.query.market ?? 'ou25';
      const strategy = request.query.strategy ?? 'model';
      return roi.rows.filter((r) => r.market === market && r.strategy === strategy);
    },
  );
}

/** The live goals markets; the goals alias is resolved here, so its run is in the cache key. */
function liveMarkets(ctx: AppContext): (matchId: number) => Promise<MatchMarkets> {
  // Built on first use: the precomputed route alone needs no registry, queue or cache.
  let aliases: AliasCache | null = null;
  return async (matchId) => {
    const started = performance.now();
    aliases ??= new AliasCache(
      // The goals stage registers under this name (pipeline/stage-goals.ts goalsModelName).
      createRegistry(ctx, { modelName: `${ctx.config.modelName}-goals` }),
      ctx.config.aliasRefreshMs,
    );
    const { version } = await aliases.resolve('champion').catch((err: unknown) => {
      if (isMatchcastError(err, 'MC_ERR_BAD_STAGE')) {
        throw new MatchcastError(
          'MC_ERR_GOALS_MODEL_UNAVAILABLE',
          `No goals model is registered (${ctx.config.modelName}-goals has no champion); run \`npx matchcast pipeline run\``,
        );
      }
      throw err;
    });
    const featuresRunId = ctx.views.servedRun()?.run_id ?? null;
    const runId = version?.run_id;
    const key = runId && predictionCacheKey(matchId, runId, { stage: 'goals', featuresRunId });
    return cachedAnswer<MatchMarkets>(ctx, started, key ? [key] : [], async () => {
      const payload = { match_id: matchId, run_id: runId };
      const result = await runTask<PredictMarketsResult>(ctx, 'predict_markets', payload);
      const body = {
        ...(result.markets as unknown as MatchMarkets),
        prediction_source: result.prediction_source,
        model_version: result.model_version,
        prediction_time: result.prediction_time,
      };
      // Cached only when the answer is exactly what the key says (this goals run, these features).
      const exact = result.goals_run_id === runId && result.features_run_id === featuresRunId;
      return [body, exact ? key || undefined : undefined];
    });
  };
}

/** Parses `reports/roi_by_region_markets.csv` (written by analytics' goals simulation). */
function parseMarketRoiCsv(text: string): MarketRoiRow[] {
  const records = parseCsv(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
  return records.map((r) => ({
    market: r.market,
    strategy: r.strategy,
    region_name: r.region_name,
    roi_pct: num(r.roi_pct),
    n_bets: Number(r.n_bets),
    hit_rate: num(r.hit_rate),
    profit: num(r.profit),
    region_id: num(r.region_id),
  }));
}
