import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { registry as metrics, predictionRequestsTotal, predictionTimeoutsTotal } from '../../src/metrics.js';
import {
  API_KEY,
  type LiveApp,
  sleep,
  spawnWorker,
  startLiveApp,
  type WorkerProcess,
} from '../worker/app-harness.js';
import { uniqueQueue } from '../worker/fixtures.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = !REDIS_URL && 'REDIS_URL not set';

async function counter(
  c: { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> },
  label?: string,
) {
  const { values } = await c.get();
  return values
    .filter((v) => label === undefined || v.labels.source === label)
    .reduce((s, v) => s + v.value, 0);
}

let live: LiveApp;
let worker: WorkerProcess | undefined;

before(async () => {
  if (skip) return;
  live = await startLiveApp({ REDIS_URL, QUEUE_NAME: uniqueQueue(), PREDICT_TIMEOUT_MS: '10000' });
  await live.fx.publish('champion');
  worker = await spawnWorker(live.fx);
});

after(async () => {
  await worker?.stop();
  await live?.close();
});

test('live prediction through a worker process; second call is a cache hit with no dispatch', {
  skip,
}, async () => {
  const champion = await live.fx.registry.resolve('champion');
  const first = await live.get('/predict/3');
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.cached, false);
  assert.equal(first.body.match_id, 3);
  assert.equal(first.body.model_run_id, champion?.run_id);
  assert.equal(first.body.model_stage, 'champion');
  assert.match(String(first.body.model_version), /^champion\/v\d+$/);
  const p = first.body.probabilities as Record<string, number>;
  assert.ok(Math.abs(p.home_win + p.draw + p.away_win - 1) < 1e-9);
  // Spec 2.3's fields, plus the additive provenance (which model answered, its cut-off).
  assert.deepEqual(Object.keys(first.body).sort(), [
    'cached',
    'match_id',
    'model_run_id',
    'model_stage',
    'model_version',
    'predicted_class',
    'prediction_source',
    'probabilities',
    'training_cutoff',
  ]);
  assert.equal(first.body.prediction_source, 'model');

  const dispatched = await counter(predictionRequestsTotal, 'sync');
  const second = await live.get('/predict/3');
  assert.equal(second.status, 200);
  assert.equal(second.body.cached, true);
  assert.deepEqual(second.body.probabilities, first.body.probabilities);
  assert.equal(await counter(predictionRequestsTotal, 'sync'), dispatched, 'a cache hit dispatches nothing');

  const text = await metrics.metrics();
  assert.match(text, /model_info\{model_name="matchcast-1x2",version="\d+",stage="champion"\} 1/);
  assert.match(text, /inference_duration_seconds_count [1-9]/);
  assert.match(text, /prediction_confidence_count\{outcome="draw"\} [1-9]/);
  assert.match(text, /model_registered_at_seconds\{model_name="matchcast-1x2"\} \d/);
});

test('unknown match → 404; bad or unassigned stage → 400; bad match id → 422; auth required', {
  skip,
}, async () => {
  const missing = await live.get('/predict/99999');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'MC_ERR_MATCH_NOT_FOUND');
  assert.equal((await live.get('/predict/3?stage=candidate')).body.code, 'MC_ERR_BAD_STAGE');
  const unassigned = await live.get('/predict/3?stage=challenger');
  assert.equal(unassigned.status, 400);
  assert.equal((await live.get('/predict/model/info?stage=nope')).status, 400);
  assert.equal((await live.get('/predict/0')).status, 422);
  assert.equal((await live.get('/predict/abc')).status, 422);
  assert.equal((await live.get('/predict/3?foo=1')).status, 422);
  const noKey = await live.app.inject({ method: 'GET', url: '/predict/3' });
  assert.equal(noKey.statusCode, 401);
});

test('model info through the queue (spec 2.7)', { skip }, async () => {
  const champion = await live.fx.registry.resolve('champion');
  const info = await live.get('/predict/model/info');
  assert.equal(info.status, 200, JSON.stringify(info.body));
  assert.equal(info.body.model_name, 'matchcast-1x2');
  assert.equal(info.body.stage, 'champion');
  assert.equal(info.body.version, champion?.version);
  assert.equal(info.body.run_id, champion?.run_id);
  assert.deepEqual(info.body.feature_names, champion?.feature_names);
  assert.equal(typeof (info.body.metrics as Record<string, number>).log_loss, 'number');
  assert.match(String(info.body.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
});

test('a newly promoted champion: the next request misses the cache and carries the new run id', {
  skip,
}, async () => {
  const before = await live.get('/predict/5');
  assert.equal(before.status, 200);
  const again = await live.get('/predict/5');
  assert.equal(again.body.cached, true);
  const v2 = await live.fx.publish('champion', 0.7);
  await sleep(live.fx.config.aliasRefreshMs + 20);
  const after = await live.get('/predict/5');
  assert.equal(after.status, 200);
  assert.equal(after.body.cached, false);
  assert.equal(after.body.model_run_id, v2.run_id);
  assert.equal(after.body.model_version, `champion/v${v2.version}`);
  const info = await live.get('/predict/model/info');
  assert.equal(info.body.run_id, v2.run_id);
  // challenger is now assignable and served by its own model
  const ch = await live.fx.publish('challenger', 2);
  await sleep(live.fx.config.aliasRefreshMs + 20);
  const byChallenger = await live.get('/predict/5?stage=challenger');
  assert.equal(byChallenger.status, 200, JSON.stringify(byChallenger.body));
  assert.equal(byChallenger.body.model_run_id, ch.run_id);
  assert.equal(byChallenger.body.model_stage, 'challenger');
});

test('async submission → 202, then task_status SUCCESS with the result; strict body', { skip }, async () => {
  const asyncBefore = await counter(predictionRequestsTotal, 'async');
  const res = await live.app.inject({
    method: 'POST',
    url: '/predict/async/',
    headers: { 'x-api-key': API_KEY },
    payload: { match_id: 7 },
  });
  assert.equal(res.statusCode, 202);
  const body = res.json();
  assert.equal(body.status, 'pending');
  assert.equal(body.status_url, `/monitoring/task_status/${body.task_id}`);
  assert.equal(await counter(predictionRequestsTotal, 'async'), asyncBefore + 1);
  let status: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    status = (await live.app.inject({ method: 'GET', url: body.status_url })).json();
    if (status.status === 'SUCCESS') break;
    await sleep(50);
  }
  assert.equal(status.status, 'SUCCESS');
  assert.equal((status.result as Record<string, unknown>).match_id, 7);

  const extra = await live.app.inject({
    method: 'POST',
    url: '/predict/async/',
    headers: { 'x-api-key': API_KEY },
    payload: { match_id: 7, features: [1] },
  });
  assert.equal(extra.statusCode, 422);

  // A failed task reports FAILURE with {error, code}.
  const bad = await live.app.inject({
    method: 'POST',
    url: '/predict/async/',
    headers: { 'x-api-key': API_KEY },
    payload: { match_id: 424242 },
  });
  const badId = bad.json().task_id;
  for (let i = 0; i < 100; i++) {
    status = (await live.app.inject({ method: 'GET', url: `/monitoring/task_status/${badId}` })).json();
    if (status.status === 'FAILURE') break;
    await sleep(50);
  }
  assert.equal(status.status, 'FAILURE');
  assert.equal((status.result as Record<string, unknown>).code, 'MC_ERR_MATCH_NOT_FOUND');

  const unknown = (
    await live.app.inject({ method: 'GET', url: '/monitoring/task_status/no-such-task' })
  ).json();
  assert.deepEqual(unknown, { task_id: 'no-such-task', status: 'pending', result: null, state: 'unknown' });
});

test('celery monitoring: workers with queues and ping; per-worker counts', { skip }, async () => {
  const workers = (await live.app.inject({ method: 'GET', url: '/monitoring/celery/workers' })).json();
  assert.equal(workers.length, 1);
  assert.deepEqual(workers[0].queues, [live.fx.config.queueName]);
  // Listed by BullMQ from the broker's client list: connected, no round trip measured.
  assert.deepEqual(workers[0].ping, { ok: true, latency_ms: null });
  assert.equal(workers[0].pid, worker?.child.pid);
  assert.equal(workers[0].active, 0);
  // Earlier tests ran predictions on it: its results show the champion it holds.
  const champion = await live.fx.registry.resolve('champion');
  assert.equal(workers[0].models.champion?.version, champion?.version);
  const queues = (await live.app.inject({ method: 'GET', url: '/monitoring/celery/queues' })).json();
  assert.equal(queues.queue, live.fx.config.queueName);
  assert.equal(typeof queues.counts.waiting, 'number');
  assert.ok(queues.counts.completed >= 1);
  assert.equal(queues.workers.length, 1);
  assert.deepEqual(Object.keys(queues.workers[0]).sort(), ['active', 'reserved', 'scheduled', 'worker']);
});

test('worker stopped → 504 after the bound, the task stays pending, and completes once a worker starts', {
  skip,
}, async () => {
  const short = await startLiveApp({ REDIS_URL, QUEUE_NAME: uniqueQueue(), PREDICT_TIMEOUT_MS: '400' });
  let w: WorkerProcess | undefined;
  try {
    await short.fx.publish('champion');
    const timeouts = await counter(predictionTimeoutsTotal);
    const started = Date.now();
    const res = await short.get('/predict/4');
    const took = Date.now() - started;
    assert.equal(res.status, 504);
    assert.equal(res.body.code, 'MC_ERR_TASK_TIMEOUT');
    assert.ok(took >= 390 && took < 2000, `took ${took} ms`);
    assert.equal(await counter(predictionTimeoutsTotal), timeouts + 1);
    const info = await short.get('/predict/model/info');
    assert.equal(info.status, 504);

    const sub = await short.app.inject({
      method: 'POST',
      url: '/predict/async/',
      headers: { 'x-api-key': API_KEY },
      payload: { match_id: 4 },
    });
    const taskId = sub.json().task_id;
    await sleep(200);
    const pending = (
      await short.app.inject({ method: 'GET', url: `/monitoring/task_status/${taskId}` })
    ).json();
    assert.deepEqual(pending, { task_id: taskId, status: 'pending', result: null, state: 'waiting' });

    w = await spawnWorker(short.fx);
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) {
      status = (await short.app.inject({ method: 'GET', url: `/monitoring/task_status/${taskId}` })).json();
      if (status.status === 'SUCCESS') break;
      await sleep(50);
    }
    assert.equal(status.status, 'SUCCESS');
    assert.equal((await short.get('/predict/4')).status, 200);
    // SIGTERM: the worker stops cleanly and leaves the workers list.
    assert.equal(await w.stop('SIGTERM'), 0);
    const workers = (await short.app.inject({ method: 'GET', url: '/monitoring/celery/workers' })).json();
    assert.deepEqual(workers, []);
  } finally {
    await w?.stop('SIGKILL');
    await short.close();
  }
});

test('cache store down → requests still work through the queue, never cached', { skip }, async () => {
  const noCache = await startLiveApp({
    REDIS_URL,
    CACHE_URL: 'redis://127.0.0.1:1',
    QUEUE_NAME: uniqueQueue(),
  });
  let w: WorkerProcess | undefined;
  try {
    await noCache.fx.publish('champion');
    w = await spawnWorker(noCache.fx);
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const res = await noCache.get('/predict/9');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.cached, false);
      assert.ok(Date.now() - started < 1000);
    }
  } finally {
    await w?.stop('SIGKILL');
    await noCache.close();
  }
});

test('Redis unreachable → live, model info and task routes answer 503 in well under 1 s', {
  skip,
}, async () => {
  const down = await startLiveApp({ REDIS_URL: 'redis://127.0.0.1:1', QUEUE_NAME: uniqueQueue() });
  try {
    await down.fx.publish('champion');
    for (const url of ['/predict/3', '/predict/model/info', '/predict/3?stage=champion']) {
      const started = performance.now();
      const res = await down.get(url);
      const took = performance.now() - started;
      assert.equal(res.status, 503, url);
      assert.equal(res.body.code, 'MC_ERR_BROKER_UNAVAILABLE');
      assert.ok(took < 1000, `${url} took ${took} ms`);
    }
    const asyncRes = await down.app.inject({
      method: 'POST',
      url: '/predict/async/',
      headers: { 'x-api-key': API_KEY },
      payload: { match_id: 3 },
    });
    assert.equal(asyncRes.statusCode, 503);
    for (const url of [
      '/monitoring/task_status/x',
      '/monitoring/celery/queues',
      '/monitoring/celery/workers',
    ]) {
      const started = performance.now();
      const res = await down.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 503, url);
      assert.ok(performance.now() - started < 1000);
    }
    assert.equal(await down.queue.ready(200), false);
    assert.equal((await down.app.inject({ method: 'GET', url: '/healthcheck/' })).statusCode, 200);
  } finally {
    await down.close();
  }
});
