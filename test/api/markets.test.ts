import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { registerAuth } from '../../src/api/plugins/auth.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { marketsRoutes } from '../../src/api/routes/markets.js';
import * as goals from '../../src/model/index.js';
import { readPublished } from '../../src/runs/index.js';
import { writeParquet } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { API_KEY, type Harness, harness } from '../serving/harness.js';

const auth = { 'x-api-key': API_KEY };
const ROWS: goals.MarketsRow[] = [
  {
    match_id: 7,
    expected_home_goals: 1.62,
    expected_away_goals: 0.94,
    rho: -0.066,
    model_stage: 'champion',
    model_run_id: 'a'.repeat(32),
    training_cutoff: new Date('2023-06-01T00:00:00Z'),
    odd_over25: 1.95,
    odd_under25: 1.9,
    odd_btts_yes: null,
    odd_btts_no: null,
  },
  {
    match_id: 8,
    expected_home_goals: 0.8,
    expected_away_goals: 2.1,
    rho: -0.05,
    model_stage: 'backtest',
    model_run_id: 'b'.repeat(32),
    training_cutoff: new Date('2022-06-01T00:00:00Z'),
    odd_over25: null,
    odd_under25: null,
    odd_btts_yes: 1.7,
    odd_btts_no: 2.1,
  },
];

let h: Harness;
let app: FastifyInstance;

async function build(): Promise<FastifyInstance> {
  const a = Fastify({
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true },
    },
  }) as unknown as FastifyInstance;
  registerErrorHandling(a);
  registerAuth(a, { apiKey: h.config.apiKey });
  // The markets come from the serving views, which read the published files: load what is there now.
  await h.views.refresh();
  await marketsRoutes(a, {
    config: h.config,
    log: h.log,
    db: h.db,
    store: h.store,
    views: h.views,
  } as unknown as AppContext);
  await a.ready();
  return a;
}

before(async () => {
  h = await harness();
  await h.views.start();
});
after(async () => {
  await app?.close();
  await h.cleanup();
});

test('no markets file: 503 MC_ERR_PREDICTIONS_UNAVAILABLE; key required', async () => {
  app = await build();
  const r = await app.inject({ url: '/predict/markets/7', headers: auth });
  assert.equal(r.statusCode, 503);
  assert.equal(r.json().code, 'MC_ERR_PREDICTIONS_UNAVAILABLE');
  const noKey = await app.inject({ url: '/predict/markets/7' });
  assert.equal(noKey.statusCode, 401);
  await app.close();
});

test('serves every market of a match from memory; the markets add up; unknown match 404; bad input 422', async () => {
  await publishArtifacts(h.deps, {
    markets: writeParquet(goals.MARKETS_COLUMNS, ROWS as unknown as Record<string, unknown>[]),
  });
  app = await build();
  const ref = (await readPublished(h.db))!.artifacts.markets!;
  const gets = h.store.count('get', ref.bucket, ref.key);
  assert.equal(gets, 1, 'the published file was read once, by the views');
  const r = await app.inject({ url: '/predict/markets/7', headers: auth });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /application\/json/);
  const m = r.json();
  assert.equal(m.match_id, 7);
  assert.equal(m.expected_home_goals, 1.62);
  assert.equal(m.model_stage, 'champion');
  assert.deepEqual(m.odds, { over25: 1.95, under25: 1.9, btts_yes: null, btts_no: null });
  const tol = 1e-12;
  assert.ok(Math.abs(m.proba_home + m.proba_draw + m.proba_away - 1) < tol);
  for (const line of ['0.5', '1.5', '2.5', '3.5', '4.5'])
    assert.ok(Math.abs(m.over[line] + m.under[line] - 1) < tol);
  assert.ok(Math.abs(m.btts_yes + m.btts_no - 1) < tol);
  assert.ok(m.proba_home > m.proba_away, 'the stronger side is favoured');
  assert.equal(m.top_scores.length, 5);
  assert.equal(m.score_matrix, undefined);
  // The bytes are the precomputed ones: no store read per request.
  await app.inject({ url: '/predict/markets/8', headers: auth });
  assert.equal(h.store.count('get', ref.bucket, ref.key), gets);

  const withMatrix = (await app.inject({ url: '/predict/markets/7?matrix=true', headers: auth })).json();
  assert.equal(withMatrix.score_matrix.length, 11);
  let sum = 0;
  let home = 0;
  withMatrix.score_matrix.forEach((row: number[], i: number) => {
    assert.equal(row.length, 11);
    row.forEach((p, j) => {
      sum += p;
      if (i > j) home += p;
    });
  });
  assert.ok(Math.abs(sum - 1) < 1e-12);
  assert.ok(Math.abs(home - m.proba_home) < 1e-12, 'the matrix reproduces its 1X2');

  const missing = await app.inject({ url: '/predict/markets/999', headers: auth });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.json().code, 'MC_ERR_MATCH_NOT_FOUND');
  const bad = await app.inject({ url: '/predict/markets/abc', headers: auth });
  assert.equal(bad.statusCode, 422);
  const unknownParam = await app.inject({ url: '/predict/markets/7?foo=1', headers: auth });
  assert.equal(unknownParam.statusCode, 422);
});

test('GET /predict/region-roi/markets/: rows of one market and strategy from the CSV; [] for none; bad market 422', async () => {
  const { roiMarketsCsv, twoWayCandidate } = await import('../../src/analytics/goals-simulation.js');
  const { simulateBets } = await import('../../src/analytics/simulation.js');
  const c = (id: number, region_id: number, region_name: string, p: number, won: boolean) =>
    twoWayCandidate({ match_id: id, region_id, region_name, season: '2022-2023' }, p, [2.0, 1.9], won);
  const ou = simulateBets([c(1, 1, 'Norland', 0.6, true), c(2, 2, 'Sud, mark', 0.6, false)], {
    edgeThreshold: 0.05,
  });
  const btts = simulateBets([c(3, 1, 'Norland', 0.6, true)], { edgeThreshold: 0.05 });
  await publishArtifacts(h.deps, {
    roiByRegionMarkets: roiMarketsCsv([
      { market: 'ou25', sim: ou },
      { market: 'btts', sim: btts },
    ]),
  });
  const r = await app.inject({ url: '/predict/region-roi/markets/?market=ou25', headers: auth });
  assert.equal(r.statusCode, 200);
  const rows = r.json();
  assert.deepEqual(
    rows.map((x: { region_name: string; n_bets: number; roi_pct: number }) => [
      x.region_name,
      x.n_bets,
      x.roi_pct,
    ]),
    [
      ['ALL', 2, 0],
      ['Norland', 1, 100],
      ['Sud, mark', 1, -100],
    ],
  );
  const fav = (
    await app.inject({ url: '/predict/region-roi/markets/?market=btts&strategy=favourite', headers: auth })
  ).json();
  assert.ok(
    fav.every((x: { market: string; strategy: string }) => x.market === 'btts' && x.strategy === 'favourite'),
  );
  assert.equal(
    (await app.inject({ url: '/predict/region-roi/markets/?market=1x2', headers: auth })).statusCode,
    422,
  );
  assert.equal((await app.inject({ url: '/predict/region-roi/markets/' })).statusCode, 401);
});
