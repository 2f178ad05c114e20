import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/api/index.js';
import { predictionRequestsTotal } from '../../src/metrics.js';
import { createRegistry } from '../../src/registry/index.js';
import { unreachableDb } from '../helpers/db-faults.js';
import { API_KEY, type LiveApp, sleep, startLiveApp } from '../worker/app-harness.js';

// Embedded mode: no REDIS_URL → in-process queue on worker threads, in-memory cache.
let live: LiveApp;
before(async () => {
  live = await startLiveApp({ REDIS_URL: undefined, CACHE_URL: undefined, PREDICT_TIMEOUT_MS: '10000' });
  await live.fx.publish('champion');
});
after(async () => live?.close());

async function syncCount(): Promise<number> {
  const { values } = await predictionRequestsTotal.get();
  return values.find((v) => v.labels.source === 'sync')?.value ?? 0;
}

test('embedded: live prediction on a worker thread, then a cache hit with no dispatch', async () => {
  assert.equal(live.queue.kind, 'in-process');
  assert.equal(live.cache.kind, 'memory');
  const champion = await live.fx.registry.resolve('champion');
  const first = await live.get('/predict/2');
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.cached, false);
  assert.equal(first.body.model_run_id, champion?.run_id);
  const n = await syncCount();
  const second = await live.get('/predict/2');
  assert.equal(second.body.cached, true);
  assert.equal(await syncCount(), n);
  assert.equal((await live.get('/predict/12345')).status, 404);
  const info = await live.get('/predict/model/info');
  assert.equal(info.status, 200);
  assert.equal(info.body.run_id, champion?.run_id);
});

test('embedded: promotion is served at once with the new run id', async () => {
  await live.get('/predict/6');
  const v2 = await live.fx.publish('champion', 0.9);
  await sleep(live.fx.config.aliasRefreshMs + 20);
  const res = await live.get('/predict/6');
  assert.equal(res.body.cached, false);
  assert.equal(res.body.model_run_id, v2.run_id);
});

test('embedded: async task → pending/STARTED → SUCCESS; failures carry their code', async () => {
  const post = async (payload: Record<string, unknown>) =>
    live.app.inject({ method: 'POST', url: '/predict/async/', headers: { 'x-api-key': API_KEY }, payload });
  const ok = (await post({ match_id: 8, stage: 'champion' })).json();
  const bad = (await post({ match_id: 9999 })).json();
  const statusOf = async (id: string) =>
    (await live.app.inject({ method: 'GET', url: `/monitoring/task_status/${id}` })).json();
  let s: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    s = await statusOf(ok.task_id);
    if (s.status === 'SUCCESS') break;
    await sleep(20);
  }
  assert.equal(s.status, 'SUCCESS');
  assert.equal((s.result as Record<string, unknown>).match_id, 8);
  for (let i = 0; i < 100; i++) {
    s = await statusOf(bad.task_id);
    if (s.status === 'FAILURE') break;
    await sleep(20);
  }
  assert.equal(s.status, 'FAILURE');
  assert.equal((s.result as Record<string, unknown>).code, 'MC_ERR_MATCH_NOT_FOUND');
});

test('embedded: celery routes list the worker threads with a ping', async () => {
  const workers = (await live.app.inject({ method: 'GET', url: '/monitoring/celery/workers' })).json();
  assert.equal(workers.length, live.fx.config.embeddedWorkerThreads);
  assert.equal(workers[0].ping.ok, true);
  assert.deepEqual(workers[0].queues, ['ml']);
  const queues = (await live.app.inject({ method: 'GET', url: '/monitoring/celery/queues' })).json();
  assert.equal(queues.queue, 'ml');
  assert.ok(queues.counts.completed >= 1);
  assert.equal(queues.workers.length, 1);
});

test('embedded: an API that cannot read the registry defers to the workers; an unassigned stage is still 400, no goals model 503', async () => {
  // A second API on the same queue and workers whose database (the registry's rows) does not answer.
  const dead = await unreachableDb();
  const app = await buildApp(
    { ...live.ctx, db: dead, registry: createRegistry({ db: dead, store: live.ctx.store }, live.fx.config) },
    { logRequests: false },
  );
  try {
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': API_KEY } });
      return { status: res.statusCode, body: res.json() };
    };
    const champion = await live.fx.registry.resolve('champion');
    const ok = await get('/predict/3');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.model_run_id, champion?.run_id, 'the workers answer with the model they hold');
    assert.equal(ok.body.cached, false);
    assert.equal((await get('/predict/3')).body.cached, false, 'nothing is cached without a run id');
    const challenger = await get('/predict/3?stage=challenger');
    assert.equal(challenger.status, 400, JSON.stringify(challenger.body));
    assert.equal(challenger.body.code, 'MC_ERR_BAD_STAGE');
    const info = await get('/predict/model/info?stage=challenger');
    assert.equal(info.status, 400);
    assert.equal(info.body.code, 'MC_ERR_BAD_STAGE');
    // No goals model here: the worker refuses as the API would have, 503 at once, not a failed task.
    const markets = await get('/predict/markets/3?live=true');
    assert.equal(markets.status, 503, JSON.stringify(markets.body));
    assert.equal(markets.body.code, 'MC_ERR_GOALS_MODEL_UNAVAILABLE');
  } finally {
    await app.close();
    await dead.close();
  }
});
