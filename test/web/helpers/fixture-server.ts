import { createHash } from 'node:crypto';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../../src/api/context.js';
import { keyMatcher } from '../../../src/api/plugins/auth.js';
import { uiRoutes } from '../../../src/api/routes/ui.js';
import { parseConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { matchMarkets, scoreMatrixRows } from '../../../src/model/index.js';
import {
  FIXTURE_BASELINES_CSV,
  FIXTURE_DRIFT,
  FIXTURE_REPORTS,
  FIXTURE_ROI,
  type FixtureCard,
  makeCards,
  modelInfo,
} from './fixtures.js';

/** The CSP the operations engineer will enforce; the fixture server applies it verbatim. */
export const STRICT_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  upgradeInsecureRequests: null,
};

export interface FixtureServer {
  app: FastifyInstance;
  url: string;
  key: string;
  /** Replaces what `GET /predict/cards/` answers from now on (the served predictions moved). */
  setCards(next: FixtureCard[]): void;
  close(): Promise<void>;
}

/**
 * A stand-in API serving /ui/ through the real `uiRoutes` plus fixture JSON for the routes the page
 * calls, under the strict CSP. For the UI benchmark (a controlled number of cards) and for checks
 * that need no model; the end-to-end test runs against the real embedded server.
 */
export async function startFixtureServer(
  options: {
    cards?: FixtureCard[] | number;
    distDir?: string;
    /** What `GET /monitoring/drift` answers. Default {@link FIXTURE_DRIFT}. */
    drift?: Record<string, unknown>;
    /** The replay clock `GET /healthcheck/` shows; default none (the wall clock). */
    clock?: string;
  } = {},
): Promise<FixtureServer> {
  const key = 'fixture-key-0123456789abcdef';
  const cards = Array.isArray(options.cards) ? options.cards : makeCards(options.cards ?? 48);
  let cardsBody = JSON.stringify(cards);
  const config = { ...parseConfig({ API_KEY: key, LOG_LEVEL: 'silent' }) };
  // A published run whose only file is the baselines CSV: the pointer row the UI route reads, and the file.
  const baselines = Buffer.from(FIXTURE_BASELINES_CSV);
  const ref = {
    bucket: 'reports',
    key: 'runs/fixture/roi_baselines.csv',
    etag: 'fixture',
    size: baselines.length,
    sha256: createHash('sha256').update(baselines).digest('hex'),
    run_id: '20260101T000000Z-f1f1f1f1',
  };
  const pointerRow = {
    run_id: ref.run_id,
    seq: 1,
    published_at: '2026-01-01T00:00:00.000Z',
    record: {
      run_id: ref.run_id,
      status: 'complete',
      artifacts: { roiBaselines: ref },
      features_fingerprint: null,
    },
  };
  const ctx = {
    config,
    log: createLogger('silent'),
    db: {
      query: async (sql: string) => (/FROM published_run p/.test(sql) ? [pointerRow] : []),
    },
    store: {
      get: async (bucket: string, k: string) =>
        bucket === ref.bucket && k === ref.key ? { body: baselines, size: baselines.length } : null,
    },
  } as unknown as AppContext;

  const app = Fastify();
  await app.register(helmet, { contentSecurityPolicy: { directives: STRICT_CSP } });
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/predict/')) return;
    const h = req.headers['x-api-key'];
    if (typeof h !== 'string' || !keyMatcher(key)(h))
      return reply.code(401).send({ detail: 'Missing or invalid API key' });
  });
  app.setErrorHandler((err: Error & { statusCode?: number; detail?: unknown }, _req, reply) => {
    reply.code(err.statusCode ?? 500).send({ detail: err.detail ?? err.message });
  });
  await uiRoutes(app, ctx, { distDir: options.distDir });

  app.get('/predict/cards/', async (_req, reply) => reply.type('application/json').send(cardsBody));
  app.get('/predict/region-roi/', async () => FIXTURE_ROI);
  app.get('/predict/model/info', async (req) =>
    modelInfo((req.query as { stage?: string }).stage === 'challenger' ? 'challenger' : 'champion'),
  );
  // Goals markets: the real per-match computation on made-up expected goals.
  app.get('/predict/markets/:id', async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    const card = cards.find((c) => c.match_id === id);
    if (!card) return reply.code(404).send({ detail: 'Match not found' });
    const lh = 0.9 + 1.2 * Number(card.proba_home);
    const la = 0.7 + 1.2 * Number(card.proba_away);
    const markets = matchMarkets({
      match_id: id,
      expected_home_goals: lh,
      expected_away_goals: la,
      rho: -0.066,
      model_stage: 'champion',
      model_run_id: 'run-goals-0001',
      training_cutoff: new Date('2023-06-01T00:00:00Z'),
      odd_over25: 1.9,
      odd_under25: 1.95,
      odd_btts_yes: 1.8,
      odd_btts_no: 2.0,
    });
    const matrix = (req.query as { matrix?: string }).matrix === 'true';
    return matrix ? { ...markets, score_matrix: scoreMatrixRows(markets) } : markets;
  });
  const seen = new Set<string>();
  app.get('/predict/:id', async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    const stage = (req.query as { stage?: string }).stage ?? 'champion';
    const card = cards.find((c) => c.match_id === id);
    if (!card) return reply.code(404).send({ detail: 'Match not found' });
    const cacheKey = `${id}:${stage}`;
    const cached = seen.has(cacheKey);
    seen.add(cacheKey);
    return {
      match_id: id,
      predicted_class: card.predicted_class,
      probabilities: { home_win: card.proba_home, draw: card.proba_draw, away_win: card.proba_away },
      model_version: stage,
      model_run_id: `run-${stage}-0001`,
      cached,
    };
  });
  app.get('/monitoring/drift', async () => options.drift ?? FIXTURE_DRIFT);
  app.get('/healthcheck/', async () => ({
    status: 'healthy',
    version: '0.0.0-fixture',
    worker_pid: process.pid,
    memory_usage_mb: 1,
    database: true,
    predictions: true,
    ...(options.clock ? { clock: options.clock } : {}),
  }));
  // An explanation whose parts add up to the card's probabilities: scores = log p, split into parts.
  app.get('/predict/explain/:id', async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    const card = cards.find((c) => c.match_id === id);
    if (!card) return reply.code(404).send({ detail: 'Match not found' });
    const p = [Number(card.proba_home), Number(card.proba_draw), Number(card.proba_away)];
    const elo = [0.2, -0.05, -0.15];
    const market = [0.1, 0, -0.1];
    const o = (v: number[]) => ({ home: v[0], draw: v[1], away: v[2] });
    const probs = o(p);
    return {
      match_id: id,
      run_id: 'fixture-run',
      model_stage: 'champion',
      model_run_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      model_name: 'matchcast',
      model_version: '3',
      training_cutoff: '2026-07-01T00:00:00.000Z',
      family: 'multinomial_logit',
      link: 'softmax',
      baseline: o(p.map((x, k) => Math.log(x) - elo[k] - market[k])),
      offset: null,
      cut_points: null,
      groups: [
        { group: 'elo', columns: ['elo_home', 'elo_away'], scores: o(elo), latent: null },
        { group: 'market', columns: ['mkt_home', 'mkt_draw', 'mkt_away'], scores: o(market), latent: null },
      ],
      scores: o(p.map(Math.log)),
      latent: null,
      probabilities: probs,
      served: probs,
      max_abs_error: 0,
      reproduces_served: true,
      market: {
        odds_observed_at: '2026-11-20T12:00:00.000Z',
        prices: { home: 2.1, draw: 3.4, away: 3.6 },
        fair: { home: 0.46, draw: 0.28, away: 0.26 },
      },
    };
  });
  app.get('/monitoring/reports', async () => FIXTURE_REPORTS);
  app.get('/monitoring/reports/:name', async (req, reply) =>
    reply.redirect(`/fixture/reports/${encodeURIComponent((req.params as { name: string }).name)}`, 307),
  );
  app.get('/fixture/reports/:name', async (req, reply) =>
    reply
      .type('text/html')
      .send(`<!doctype html><title>${(req.params as { name: string }).name}</title><h1>Report</h1>`),
  );

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    key,
    setCards: (next) => {
      cardsBody = JSON.stringify(next);
    },
    close: () => app.close(),
  };
}
