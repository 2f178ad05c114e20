// Dependency faults (spec §7 and §3.3) on real processes: the cache store, PostgreSQL
// (behind a TCP proxy the test switches off), the object store (s3rver stopped and restarted on the
// same folder) and a corrupt predictions file. Heavy: ~80 s.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { KEYS } from '../../src/domain/index.js';
import { RunWriter } from '../../src/runs/index.js';
import { createObjectStore, type ObjectInfo } from '../../src/storage/index.js';
import {
  CLUSTER_SKIP,
  type Cluster,
  freePort,
  get,
  sleep,
  startCluster,
  waitFor,
} from '../helpers/cluster.js';
import { servedStoreView } from '../helpers/served.js';

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  // API 1 gets a cache store that does not exist (nothing listens on the port).
  const deadCache = `redis://127.0.0.1:${await freePort()}`;
  c = await startCluster({ apis: 2, workers: 1, pgProxy: true, apiEnv: [{}, { CACHE_URL: deadCache }] });
});
after(async () => {
  await c?.close();
});

const PRECOMPUTED = ['/predict/predictions/', '/predict/cards/', '/predict/odds/'];

test('cache store down: live requests succeed without the cache', { skip: CLUSTER_SKIP }, async () => {
  const [withCache, noCache] = c.apis;
  const id = c.matchIds[0];
  const first = await get(withCache.base, `/predict/${id}`);
  const again = await get(withCache.base, `/predict/${id}`);
  assert.equal(first.status, 200);
  assert.equal(again.json.cached, true, 'the control API does cache');
  for (let i = 0; i < 3; i++) {
    const r = await get(noCache.base, `/predict/${id}`, 5000);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.cached, false, 'no cache: every request goes to a worker');
    assert.deepEqual(r.json.probabilities, first.json.probabilities);
  }
  for (const url of PRECOMPUTED) assert.equal((await get(noCache.base, url)).status, 200, url);
});

test('PostgreSQL down: /livescores/ 503, /healthcheck/ 200 with database false, the rest unaffected', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  assert.equal((await get(api.base, '/livescores/?year=2026')).status, 200);
  await c.pgProxy?.stop();
  const downAt = Date.now();
  try {
    const scores = await get(api.base, '/livescores/?year=2026', 10_000);
    assert.equal(scores.status, 503, scores.text);
    assert.equal(scores.json.code, 'MC_ERR_DATABASE_UNAVAILABLE');
    const health = await get(api.base, '/healthcheck/', 10_000);
    assert.equal(health.status, 200, 'liveness must not restart pods for a database outage');
    assert.equal(health.json.database, false);
    assert.equal(health.json.status, 'degraded');
    for (const url of [
      ...PRECOMPUTED,
      `/predict/precomputed/${c.matchIds[1]}`,
      `/predict/${c.matchIds[2]}`,
    ]) {
      const r = await get(api.base, url);
      assert.equal(r.status, 200, `${url} with PostgreSQL down: ${r.text.slice(0, 200)}`);
    }
    console.log(
      `# PostgreSQL down: livescores 503 in ${scores.ms.toFixed(0)} ms, healthcheck 200 in ${health.ms.toFixed(0)} ms`,
    );
  } finally {
    await c.pgProxy?.start();
  }
  const upAt = Date.now();
  await waitFor(
    'livescores again',
    async () => (await get(api.base, '/livescores/?year=2026')).status === 200,
    15_000,
    200,
  );
  const health = await get(api.base, '/healthcheck/');
  assert.equal(health.json.database, true);
  console.log(
    `# PostgreSQL back: livescores 200 again after ${Date.now() - upAt} ms (outage ${upAt - downAt} ms)`,
  );
});

test('object store down: views and loaded models keep serving; the pipeline fails and changes nothing', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  const config = parseConfig({ ...c.env, LOG_LEVEL: 'silent' });
  const refs = [KEYS.predictions, KEYS.features, KEYS.odds, KEYS.backtest];
  const heads = async (): Promise<Array<ObjectInfo | null>> => {
    const store = createObjectStore(config);
    const db = await openDatabase(config);
    try {
      // The served copies: artifacts live under the published run's prefix.
      return await Promise.all(refs.map((r) => servedStoreView({ db, store }).head(r.bucket, r.key)));
    } finally {
      await db.close();
      await store.close();
    }
  };
  const before = await heads();
  assert.ok(
    before.every((h) => h !== null),
    'artifacts exist',
  );
  const bodies = new Map<string, string>();
  for (const url of PRECOMPUTED) bodies.set(url, (await get(api.base, url)).text);
  const registryBefore = (await c.cli(['registry', 'list', '--json'])).stdout;
  // The worker has loaded the champion by now (earlier tests); make sure of it.
  assert.equal((await get(api.base, `/predict/${c.matchIds[3]}`)).status, 200);

  await c.s3.stop();
  let pipeline: { code: number | null; out: string };
  const started = Date.now();
  try {
    await sleep(1200); // a few view polls fail meanwhile
    for (const url of PRECOMPUTED) {
      const r = await get(api.base, url);
      assert.equal(r.status, 200, `${url} with the store down`);
      assert.equal(r.text, bodies.get(url), `${url}: the loaded view keeps serving`);
    }
    // Distinct ids: each is a task the worker answers from its loaded model and features.
    for (const id of c.matchIds.slice(10, 14)) {
      const r = await get(api.base, `/predict/${id}`, 10_000);
      assert.equal(r.status, 200, `live with the store down: ${r.text}`);
    }
    assert.equal((await get(api.base, '/healthcheck/')).status, 200);
    pipeline = await c.cli(['pipeline', 'run'], {}, 90_000);
  } finally {
    await c.s3.start();
  }
  const pipelineMs = Date.now() - started;
  assert.equal(pipeline.code, 1, pipeline.out.slice(-2000));
  assert.match(pipeline.out, /MC_ERR_STORE_UNAVAILABLE|object store/i, 'a clear error names the store');
  assert.doesNotMatch(pipeline.out, /\n\s+at /, 'an error message, not a stack trace');
  const afterwards = await heads();
  for (const [i, h] of afterwards.entries()) {
    assert.equal(h?.etag, before[i]?.etag, `${refs[i].key} untouched`);
    assert.equal(h?.size, before[i]?.size);
  }
  assert.equal((await c.cli(['registry', 'list', '--json'])).stdout, registryBefore, 'registry unchanged');
  console.log(
    `# object store down: pipeline failed (exit 1) after ${pipelineMs} ms; ${refs.length} artifacts and the registry unchanged`,
  );
  console.log(`# pipeline error: ${pipeline.out.trim().split('\n').slice(-1)[0]?.slice(0, 200)}`);
});

test('a corrupt predictions file: the previous view keeps serving, the failure is counted', {
  skip: CLUSTER_SKIP,
}, async () => {
  const metric = async (base: string) => {
    const text = (await get(base, '/metrics')).text;
    const m = /matchcast_artifact_load_failures_total\{[^}]*artifact="predictions"[^}]*\} (\d+)/.exec(text);
    return m ? Number(m[1]) : 0;
  };
  const before = await Promise.all(c.apis.map((a) => get(a.base, '/predict/predictions/')));
  const failuresBefore = await Promise.all(c.apis.map((a) => metric(a.base)));
  const config = parseConfig({ ...c.env, LOG_LEVEL: 'silent' });
  const store = createObjectStore(config);
  const db = await openDatabase(config);
  try {
    // A published run whose predictions are corrupt (gates bypassed on purpose: this tests the API's own check).
    const run = await RunWriter.begin({ db, store }, { kind: 'test' });
    await run.put('predictions', Buffer.from('PAR1 this is not a parquet file'));
    await run.publish({ gates: [], requireParentCurrent: false });
  } finally {
    await db.close();
    await store.close();
  }
  for (const [i, api] of c.apis.entries()) {
    await waitFor(
      'the load failure to be counted',
      async () => (await metric(api.base)) > failuresBefore[i],
      10_000,
      200,
    );
    const r = await get(api.base, '/predict/predictions/');
    assert.equal(r.status, 200);
    assert.equal(r.text, before[i].text, 'the previous predictions keep serving');
    assert.equal((await get(api.base, `/predict/precomputed/${c.matchIds[0]}`)).status, 200);
  }
});
