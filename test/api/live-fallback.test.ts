import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { featureRowsToParquet, toModelInput } from '../../src/features/index.js';
import { serializeModel } from '../../src/model/index.js';
import { trainModel } from '../../src/model/model.js';
import { createRegistry, type ModelVersion } from '../../src/registry/index.js';
import { readPublished } from '../../src/runs/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { type LiveApp, startLiveApp } from '../worker/app-harness.js';
import { featureRows } from '../worker/fixtures.js';

// Market-free fallback, live part: GET /predict/{id} of a match with no odds is scored by the market-free
// fallback (<MODEL_NAME>-market-free, alias champion), labelled, and cached under its own key.
const NO_ODDS = new Set([5, 7, 30]);
let live: LiveApp;
let champion: ModelVersion;
let fallback: ModelVersion;

async function registerFallback(cutoff: Date, l2: number): Promise<ModelVersion> {
  const fx = live.fx;
  const registry = createRegistry(fx, { modelName: `${fx.config.modelName}-market-free` });
  const rows = featureRows();
  const names = ['elo_diff'];
  const model = trainModel(
    rows.map((r) => toModelInput(r, names)),
    rows.map((r) => r.label ?? 0),
    { featureNames: names, l2, maxIter: 50 },
  );
  const v = await registry.registerVersion({
    metrics: { log_loss: 1.07 },
    params: { l2 },
    feature_names: names,
    training_cutoff: cutoff,
    artifact: serializeModel(model),
  });
  await registry.setAlias('champion', v.version, 'test');
  return v;
}

before(async () => {
  // The first request starts the worker threads and loads the models: bounded generously, since this
  // file checks labels and caching, not latency (a loaded CI host took over 10 s).
  live = await startLiveApp({ REDIS_URL: undefined, CACHE_URL: undefined, PREDICT_TIMEOUT_MS: '30000' });
  const rows = featureRows().map((r) => ({ ...r, mkt_missing: NO_ODDS.has(r.match_id) ? 1 : 0 }));
  await publishArtifacts(live.fx, { features: featureRowsToParquet(rows) });
  await live.ctx.views.refresh();
  champion = await live.fx.publish('champion');
  // Matches kick off from 2024-01-02 (fixtures.ts): match 30 (2024-01-31) is after this cut-off, 5 and 7 are not.
  fallback = await registerFallback(new Date(Date.UTC(2024, 0, 20)), 0.003);
});
after(async () => live?.close());

test('a match without odds after the fallback cut-off: the fallback scores it, labelled, cached apart', async () => {
  const first = await live.get('/predict/30');
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.prediction_source, 'market_free_fallback');
  assert.equal(first.body.model_run_id, fallback.run_id);
  assert.equal(first.body.model_stage, 'champion');
  assert.equal(first.body.model_version, `champion/v${fallback.version}`);
  assert.equal(first.body.training_cutoff, fallback.training_cutoff);
  assert.equal(first.body.cached, false);
  const p = first.body.probabilities as Record<string, number>;
  assert.ok(Math.abs(p.home_win + p.draw + p.away_win - 1) < 1e-9);
  const second = await live.get('/predict/30');
  assert.equal(second.body.cached, true);
  assert.equal(second.body.prediction_source, 'market_free_fallback');
  // The fallback's answer sits under its own key: the champion's key of the match stays empty.
  const { predictionCacheKey } = await import('../../src/cache/index.js');
  const scope = { stage: 'champion', featuresRunId: (await readPublished(live.fx.db))?.run_id ?? null };
  assert.equal((await live.cache.get(predictionCacheKey(30, champion.run_id, scope))) ?? null, null);
  assert.notEqual(
    await live.cache.get(
      predictionCacheKey(30, champion.run_id, { ...scope, stage: 'champion+market-free' }),
    ),
    null,
  );
});

test('a match with odds is the champion’s; one without odds before the fallback cut-off is too', async () => {
  const withOdds = await live.get('/predict/31');
  assert.equal(withOdds.status, 200, JSON.stringify(withOdds.body));
  assert.equal(withOdds.body.prediction_source, 'model');
  assert.equal(withOdds.body.model_run_id, champion.run_id);
  const early = await live.get('/predict/7');
  assert.equal(early.status, 200, JSON.stringify(early.body));
  assert.equal(early.body.prediction_source, 'model');
  assert.equal(early.body.model_run_id, champion.run_id);
});
