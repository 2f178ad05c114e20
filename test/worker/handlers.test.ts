import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isMatchcastError } from '../../src/domain/index.js';
import { featureRowsToParquet } from '../../src/features/index.js';
import { createLogger } from '../../src/logger.js';
import { createDefaultWorkerDeps, createWorkerRuntime } from '../../src/worker/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { createFixture, type Fixture, featureRows } from './fixtures.js';

let fx: Fixture;
before(async () => {
  fx = await createFixture();
});
after(async () => fx.cleanup());

const log = createLogger('silent');

test('predict_match returns spec 2.3 with the run id of the model that computed it', async () => {
  const v1 = await fx.publish('champion');
  const rt = createWorkerRuntime(
    await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    { aliasRefreshMs: 50 },
  );
  const r = await rt.predictMatch({ match_id: 3, stage: 'champion' });
  assert.equal(r.match_id, 3);
  assert.equal(r.model_run_id, v1.run_id);
  assert.equal(r.model_version, `champion/v${v1.version}`);
  const sum = r.probabilities.home_win + r.probabilities.draw + r.probabilities.away_win;
  assert.ok(Math.abs(sum - 1) < 1e-9);
  assert.ok([0, 1, 2].includes(r.predicted_class));
  assert.ok(r.inference_ms >= 0);
  assert.equal(r.model.version, v1.version);

  // A promotion is picked up: at once with the run-id hint, and by the periodic re-resolve without it.
  const v2 = await fx.publish('champion', 0.5);
  const hinted = await rt.predictMatch({ match_id: 3, stage: 'champion', run_id: v2.run_id });
  assert.equal(hinted.model_run_id, v2.run_id);
  assert.notDeepEqual(hinted.probabilities, r.probabilities);
  // A stale hint (the old run) does not bring the old model back.
  const stale = await rt.predictMatch({ match_id: 3, stage: 'champion', run_id: v1.run_id });
  assert.equal(stale.model_run_id, v2.run_id);

  const info = await rt.modelInfo({ stage: 'champion' });
  assert.equal(info.version, v2.version);
  assert.equal(info.run_id, v2.run_id);
  assert.deepEqual(info.feature_names, v2.feature_names);
  assert.equal(info.created_at, v2.created_at);
});

test('unknown match → MC_ERR_MATCH_NOT_FOUND; no challenger → MC_ERR_BAD_STAGE, as the API answers', async () => {
  await fx.publish('champion');
  const rt = createWorkerRuntime(
    await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
  );
  await assert.rejects(rt.predictMatch({ match_id: 99_999, stage: 'champion' }), {
    code: 'MC_ERR_MATCH_NOT_FOUND',
  });
  await assert.rejects(rt.predictMatch({ match_id: 1, stage: 'challenger' }), {
    code: 'MC_ERR_BAD_STAGE',
  });
  await assert.rejects(rt.modelInfo({ stage: 'challenger' }), { code: 'MC_ERR_BAD_STAGE' });
  await assert.rejects(rt.predictMatch({ match_id: 1, stage: 'candidate' }), { code: 'MC_ERR_BAD_STAGE' });
});

test('the features file is reloaded when a run with new features is published', async () => {
  await fx.publish('champion');
  const rt = createWorkerRuntime(
    await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    {
      viewRefreshMs: 20,
    },
  );
  await assert.rejects(rt.predictMatch({ match_id: 500, stage: 'champion' }), {
    code: 'MC_ERR_MATCH_NOT_FOUND',
  });
  await publishArtifacts(fx, { features: featureRowsToParquet(featureRows([1, 2, 500])) });
  const deadline = Date.now() + 5000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 30));
    try {
      const r = await rt.predictMatch({ match_id: 500, stage: 'champion' });
      assert.equal(r.match_id, 500);
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
  }
  await publishArtifacts(fx, { features: featureRowsToParquet(featureRows()) });
});

test('an unknown match re-checks the served features at once: a match added by a newer file is found before the next background check', async () => {
  await fx.publish('champion');
  const rt = createWorkerRuntime(
    await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store }),
    {
      viewRefreshMs: 600_000, // the background check never runs in this test
    },
  );
  assert.equal((await rt.predictMatch({ match_id: 1, stage: 'champion' })).match_id, 1);
  await publishArtifacts(fx, { features: featureRowsToParquet(featureRows([1, 2, 501])) });
  await new Promise((r) => setTimeout(r, 300)); // past the miss re-check interval (250 ms)
  assert.equal((await rt.predictMatch({ match_id: 501, stage: 'champion' })).match_id, 501);
  // A miss that stays a miss is still MC_ERR_MATCH_NOT_FOUND.
  await new Promise((r) => setTimeout(r, 300));
  await assert.rejects(rt.predictMatch({ match_id: 999_999, stage: 'champion' }), {
    code: 'MC_ERR_MATCH_NOT_FOUND',
  });
  await publishArtifacts(fx, { features: featureRowsToParquet(featureRows()) });
});

test('registry unreachable: a running worker keeps its model; a new one fails checkRegistry', async () => {
  await fx.publish('champion');
  const deps = await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store });
  let down = false;
  const registry = deps.registry;
  const flaky = {
    modelName: registry.modelName,
    resolve: (s: Parameters<typeof registry.resolve>[0]) =>
      down ? Promise.reject(new Error('database down')) : registry.resolve(s),
    aliases: () => (down ? Promise.reject(new Error('database down')) : registry.aliases()),
  };
  const rt = createWorkerRuntime({ ...deps, registry: flaky }, { aliasRefreshMs: 10 });
  await rt.checkRegistry();
  const before = await rt.predictMatch({ match_id: 2, stage: 'champion' });
  down = true;
  await new Promise((r) => setTimeout(r, 30));
  const during = await rt.predictMatch({ match_id: 2, stage: 'champion' });
  assert.equal(during.model_run_id, before.model_run_id);
  const fresh = createWorkerRuntime({ ...deps, registry: flaky });
  await assert.rejects(fresh.checkRegistry(), { code: 'MC_ERR_STORE_UNAVAILABLE' });
});

test('a model whose output is not a distribution fails its task; nothing leaves the worker', async () => {
  await fx.publish('champion');
  const deps = await createDefaultWorkerDeps(fx.config, log, { db: fx.db, store: fx.store });
  for (const bad of [
    [Number.NaN, 0.5, 0.5],
    [1, 0, 0.2],
    [1.2, -0.1, -0.1],
  ] as [number, number, number][]) {
    const rt = createWorkerRuntime({ ...deps, loadPredictor: async () => () => bad }, { aliasRefreshMs: 50 });
    await assert.rejects(rt.predictMatch({ match_id: 3, stage: 'champion' }), (e) =>
      isMatchcastError(e, 'MC_ERR_MODEL_UNAVAILABLE'),
    );
  }
});
