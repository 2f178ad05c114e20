// Hardening (result TTL, readiness, task deadlines, limits) on real processes: 2 APIs + 2 workers over PostgreSQL (behind a TCP proxy the
// test switches off), a private redis-server the test kills, and s3rver the test stops. Results kept by
// age with `unknown` told apart from `waiting`; the waiting-job cap (503 + Retry-After); sync tasks that
// expire with their caller; monitoring on one shared connection; slow bodies cut; async metrics; and an API
// started during each outage that picks the dependency up without a restart. Heavy: ~90 s.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { parseConfig } from '../../src/config.js';
import { createObjectStore } from '../../src/storage/index.js';
import {
  API_KEY,
  CLUSTER_SKIP,
  type Cluster,
  get,
  post,
  sleep,
  startCluster,
  waitFor,
} from '../helpers/cluster.js';

const SETTINGS = {
  RESULT_TTL: '4',
  QUEUE_MAX_WAITING: '12',
  REQUEST_TIMEOUT_MS: '2000',
  PREDICT_TIMEOUT_MS: '3000',
  PREDICTION_CACHE_TTL: '1',
};

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({ apis: 2, workers: 2, privateRedis: true, pgProxy: true, env: SETTINGS });
});
after(async () => {
  await c?.close();
});

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
}

test('model_info has a sample at start; async predictions feed inference_duration and confidence', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[1];
  // No live call has reached this API yet: model_info comes from the registry + the workers' listing.
  const first = await waitFor(
    'model_info sample',
    async () => {
      const m = await get(api.base, '/metrics');
      return /^model_info\{[^}]*stage="champion"[^}]*\} [01]$/m.test(m.text) && m;
    },
    20_000,
    250,
  );
  const before = metric(first.text, 'inference_duration_seconds_count');
  const ids: string[] = [];
  for (const id of c.matchIds.slice(0, 5)) {
    const r = await post(api.base, '/predict/async/', { match_id: id });
    assert.equal(r.status, 202, r.text);
    ids.push(r.json.task_id);
  }
  for (const id of ids) {
    await waitFor(
      `task ${id}`,
      async () => (await get(api.base, `/monitoring/task_status/${id}`)).json?.status === 'SUCCESS',
      // Bounded, with room for a CI machine running this beside the two cluster starts.
      30_000,
    );
  }
  const m = await waitFor(
    'async results counted',
    async () => {
      const r = await get(api.base, '/metrics');
      return metric(r.text, 'inference_duration_seconds_count') >= before + 5 && r;
    },
    5000,
  );
  assert.ok(metric(m.text, 'prediction_confidence_count{outcome="home_win"}') >= 5);
  assert.match(m.text, /^matchcast_task_results_kept \d+/m);
  assert.match(m.text, /^matchcast_broker_memory_bytes \d+/m);
  console.log(
    `# async metrics: inference_duration_seconds_count ${before} -> ${metric(m.text, 'inference_duration_seconds_count')}`,
  );
});

test('task_status: unknown id and expired result say state "unknown"; a queued one "waiting"', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  const unknown = await get(api.base, '/monitoring/task_status/no-such-task');
  assert.equal(unknown.status, 200);
  assert.deepEqual(unknown.json, {
    task_id: 'no-such-task',
    status: 'pending',
    result: null,
    state: 'unknown',
  });
  const r = await post(api.base, '/predict/async/', { match_id: c.matchIds[6] });
  const id = r.json.task_id as string;
  await waitFor(
    'SUCCESS',
    async () => (await get(api.base, `/monitoring/task_status/${id}`)).json?.state === 'completed',
    15_000,
  );
  const doneAt = Date.now();
  // BullMQ drops results older than RESULT_TTL (4 s) when later jobs finish: keep some finishing.
  const expired = await waitFor(
    'result expired',
    async () => {
      await post(api.base, '/predict/async/', { match_id: c.matchIds[7] });
      const s = await get(api.base, `/monitoring/task_status/${id}`);
      return s.json?.state === 'unknown' && s;
    },
    20_000,
    1000,
  );
  assert.equal(expired.json.status, 'pending', 'the spec status string is kept');
  const age = (Date.now() - doneAt) / 1000;
  assert.ok(age >= 3.5, `expired after ${age} s (RESULT_TTL 4 s)`);
  console.log(`# result of ${id} kept ${age.toFixed(1)} s with RESULT_TTL=4`);
});

test('workers stopped: sync task expires with its caller, waiting cap answers 503 + Retry-After, nothing lost', {
  skip: CLUSTER_SKIP,
}, async () => {
  const [a, b] = c.apis;
  await Promise.all(c.workers.map((w) => w.stop('SIGTERM', 8000)));
  c.workers.length = 0;
  await sleep(500);
  const sync = await get(a.base, `/predict/${c.matchIds[8]}`, 10_000);
  assert.equal(sync.status, 504, sync.text);
  assert.equal(sync.json.code, 'MC_ERR_TASK_TIMEOUT');
  const accepted: string[] = [];
  const rejected: Array<{ status: number; code: string; retryAfter: string | null }> = [];
  for (let i = 0; i < 30; i++) {
    const base = i % 2 ? a.base : b.base;
    const res = await fetch(`${base}/predict/async/`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ match_id: c.matchIds[i % c.matchIds.length] }),
    });
    const body = (await res.json()) as { task_id?: string; code?: string };
    if (res.status === 202 && body.task_id) accepted.push(body.task_id);
    else
      rejected.push({
        status: res.status,
        code: String(body.code),
        retryAfter: res.headers.get('retry-after'),
      });
    await sleep(30);
  }
  assert.ok(rejected.length > 0, 'the cap was reached');
  for (const r of rejected) {
    assert.equal(r.status, 503);
    assert.equal(r.code, 'MC_ERR_QUEUE_FULL');
    assert.ok(Number(r.retryAfter) > 0, 'Retry-After is sent');
  }
  // One waiting sync task + the accepted async ones; two APIs each count between reads (250 ms).
  assert.ok(accepted.length + 1 <= 12 + 4, `accepted ${accepted.length} with QUEUE_MAX_WAITING=12`);
  const live = await get(a.base, `/predict/${c.matchIds[9]}`, 10_000);
  assert.equal(live.status, 503, 'a full queue refuses sync work too, at once');
  assert.equal(live.json.code, 'MC_ERR_QUEUE_FULL');

  c.workers.push(await c.startWorker());
  const states = await waitFor(
    'every accepted task finished',
    async () => {
      const all = await Promise.all(accepted.map((id) => get(b.base, `/monitoring/task_status/${id}`)));
      return all.every((s) => s.json.status === 'SUCCESS') && all;
    },
    30_000,
    500,
  );
  assert.equal(states.length, accepted.length);
  const counts = await get(a.base, '/monitoring/celery/queues');
  assert.equal(counts.json.counts.waiting, 0);
  // The expired sync task was skipped, not run: FAILURE with its code.
  const failed = counts.json.counts.failed as number;
  assert.ok(failed >= 1, `the sync task whose caller left was failed as expired (failed=${failed})`);
  console.log(
    `# workers down: sync 504 in ${sync.ms.toFixed(0)} ms; ${accepted.length} async accepted, ${rejected.length} × 503 MC_ERR_QUEUE_FULL; all accepted SUCCESS after restart`,
  );
});

test('monitoring: 200 calls to /monitoring/celery/workers open no Redis connection', {
  skip: CLUSTER_SKIP,
}, async () => {
  const redis = new Redis(c.redis?.url ?? '', { maxRetriesPerRequest: 1 });
  try {
    const clients = async () =>
      String(await redis.call('CLIENT', 'LIST'))
        .trim()
        .split('\n').length;
    const before = await clients();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(c.apis[i % 2].base, '/monitoring/celery/workers')),
    );
    const ms = performance.now() - started;
    assert.ok(answers.every((r) => r.status === 200));
    const afterCount = await clients();
    assert.ok(afterCount - before <= 1, `Redis clients ${before} -> ${afterCount}`);
    console.log(`# 200 workers calls in ${ms.toFixed(0)} ms; Redis clients ${before} -> ${afterCount}`);
  } finally {
    redis.disconnect();
  }
});

test('a body sent slowly with a valid key is cut at REQUEST_TIMEOUT_MS with a coded 408', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  const started = performance.now();
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(api.port, '127.0.0.1');
    let data = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => {
      data += d.toString();
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(data);
    });
    socket.on('error', () => undefined);
    socket.write(
      `POST /predict/async/ HTTP/1.1\r\nHost: x\r\nX-API-Key: ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`,
    );
    timer = setInterval(() => socket.write(' '), 300);
    setTimeout(() => {
      socket.destroy();
      reject(new Error('connection still open after 15 s'));
    }, 15_000);
  });
  const seconds = (performance.now() - started) / 1000;
  assert.match(answer, /^HTTP\/1\.1 408/);
  assert.match(answer, /MC_ERR_REQUEST_TIMEOUT/);
  assert.ok(seconds < 5, `cut after ${seconds} s`);
  console.log(`# slow body cut after ${seconds.toFixed(2)} s (REQUEST_TIMEOUT_MS=2000)`);
});

test('an API started during a PostgreSQL, object-store or Redis outage serves the rest and recovers without restart', {
  skip: CLUSTER_SKIP,
}, async () => {
  const figures: string[] = [];
  // PostgreSQL down at start.
  await c.pgProxy?.stop();
  let api = await c.startApi().catch(async (err) => {
    await c.pgProxy?.start();
    throw err;
  });
  c.apis.push(api);
  try {
    // The published run is a row of the database: an API that never read it has nothing to serve yet
    // (a coded 503, not an empty 200), and serves it once the database answers, without a restart.
    const none = await get(api.base, '/predict/predictions/');
    assert.equal(none.status, 503, none.text);
    assert.equal(none.json.code, 'MC_ERR_PREDICTIONS_UNAVAILABLE');
    const scores = await get(api.base, '/livescores/?year=2026', 10_000);
    assert.equal(scores.status, 503);
    assert.equal(scores.json.code, 'MC_ERR_DATABASE_UNAVAILABLE');
    const health = await get(api.base, '/healthcheck/');
    assert.equal(health.status, 200);
    assert.equal(health.json.database, false);
    assert.equal(health.json.status, 'degraded');
    assert.equal((await get(api.base, '/readyz')).status, 503, 'not ready: nothing to serve yet');
  } finally {
    await c.pgProxy?.start();
  }
  let upAt = Date.now();
  await waitFor(
    'predictions after PostgreSQL returns',
    async () => (await get(api.base, '/predict/predictions/')).status === 200,
    20_000,
    200,
  );
  figures.push(`PostgreSQL: predictions 200 ${Date.now() - upAt} ms after it returned`);
  upAt = Date.now();
  await waitFor(
    'livescores after PostgreSQL returns',
    async () => (await get(api.base, '/livescores/?year=2026')).status === 200,
    20_000,
    200,
  );
  figures.push(`PostgreSQL: /livescores/ 200 ${Date.now() - upAt} ms after it returned`);
  assert.ok(api.proc.running());

  // Object store down at start: nothing to serve yet (503 coded, degraded, not ready), then served.
  await c.s3.stop();
  try {
    api = await c.startApi();
    c.apis.push(api);
    const r = await get(api.base, '/predict/predictions/');
    assert.equal(r.status, 503, r.text);
    assert.equal(r.json.code, 'MC_ERR_PREDICTIONS_UNAVAILABLE');
    const ready = await get(api.base, '/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.json.code, 'MC_ERR_PREDICTIONS_UNAVAILABLE');
    const health = await get(api.base, '/healthcheck/');
    assert.equal(health.status, 200);
    assert.equal(health.json.status, 'degraded');
    assert.equal(health.json.predictions, false);
    assert.equal((await get(api.base, '/livescores/?year=2026')).status, 200);
    // Running workers keep serving their loaded model (spec §7): the API, which has never read the
    // registry, sends the stage without a run id and lets them answer.
    const live = await get(api.base, `/predict/${c.matchIds[10]}`, 10_000);
    assert.equal(live.status, 200, `live from an API started with the store down: ${live.text}`);
    assert.equal(live.json.cached, false);
  } finally {
    await c.s3.start();
  }
  upAt = Date.now();
  await waitFor(
    'predictions after the store returns',
    async () => (await get(api.base, '/predict/predictions/')).status === 200,
    20_000,
    200,
  );
  figures.push(`object store: /predict/predictions/ 200 ${Date.now() - upAt} ms after it returned`);
  assert.equal((await get(api.base, '/readyz')).status, 200);
  assert.equal((await get(api.base, '/healthcheck/')).json.status, 'healthy');

  // Redis down at start.
  await c.redis?.stop();
  try {
    api = await c.startApi();
    c.apis.push(api);
    assert.equal((await get(api.base, '/predict/predictions/')).status, 200);
    const live = await get(api.base, `/predict/${c.matchIds[10]}`, 5000);
    assert.equal(live.status, 503);
    assert.equal(live.json.code, 'MC_ERR_BROKER_UNAVAILABLE');
  } finally {
    await c.redis?.start();
  }
  upAt = Date.now();
  await waitFor(
    'live after Redis returns',
    async () => (await get(api.base, `/predict/${c.matchIds[11]}`, 5000)).status === 200,
    30_000,
    300,
  );
  figures.push(`Redis: live 200 ${Date.now() - upAt} ms after it returned`);
  for (const a of c.apis) assert.ok(a.proc.running(), `${a.proc.name} still running`);
  console.log(`# started during outages: ${figures.join('; ')}`);
});

test('a corrupt model artifact: the failed task answers 500 MC_ERR_TASK_FAILED (spec §7), not 503', {
  skip: CLUSTER_SKIP,
}, async () => {
  // A version no worker has loaded yet (trained on another validation window, so not reused) becomes
  // challenger.
  const train = await c.cli(['pipeline', 'train', '--validation-days', '123']);
  assert.equal(train.code, 0, train.out);
  const listed = await c.cli(['registry', 'list', '--json']);
  assert.equal(listed.code, 0, listed.out);
  const fresh = String(
    Math.max(
      ...(JSON.parse(listed.stdout) as { versions: { version: string }[] }).versions.map((v) =>
        Number(v.version),
      ),
    ),
  );
  const show = await c.cli(['registry', 'show', fresh, '--json']);
  assert.equal(show.code, 0, show.out);
  const uri = JSON.parse(show.stdout).artifact_uri as string;
  const key = uri.replace(/^models\//, '');
  const store = createObjectStore(parseConfig({ ...c.env, LOG_LEVEL: 'silent' }));
  try {
    await store.put('models', key, 'not a model {');
  } finally {
    await store.close();
  }
  const set = await c.cli([
    'registry',
    'alias',
    'set',
    'challenger',
    fresh,
    '--reason',
    'corrupt artifact test',
  ]);
  assert.equal(set.code, 0, set.out);
  const api = c.apis[0];
  const r = await waitFor(
    'the challenger alias seen',
    async () => {
      const res = await get(api.base, `/predict/${c.matchIds[12]}?stage=challenger`, 15_000);
      return res.status !== 400 && res;
    },
    10_000,
    500,
  );
  assert.equal(r.status, 500, r.text);
  assert.equal(r.json.code, 'MC_ERR_TASK_FAILED');
  assert.equal(typeof r.json.request_id, 'string');
  // The champion keeps serving.
  assert.equal((await get(api.base, `/predict/${c.matchIds[13]}`)).status, 200);
  console.log(`# corrupt model artifact: 500 MC_ERR_TASK_FAILED in ${r.ms.toFixed(0)} ms; champion 200`);
});
