// Redis down and back (spec §7): a private redis-server is killed under a running
// `matchcast serve` + `matchcast worker`, then started again on the same port. No process restarts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CLUSTER_SKIP, type Cluster, get, sleep, startCluster, waitFor } from '../helpers/cluster.js';

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({ apis: 1, workers: 1, privateRedis: true, env: { PREDICTION_CACHE_TTL: '1' } });
});
after(async () => {
  await c?.close();
});

test('Redis down: precomputed and health stay 200, live 503 fast; full service again without restart', {
  skip: CLUSTER_SKIP,
}, async () => {
  const api = c.apis[0];
  const [m0, m1] = c.matchIds;
  const live = await get(api.base, `/predict/${m0}`);
  assert.equal(live.status, 200, live.text);
  const apiPid = api.proc.child.pid;
  const workerPid = c.workers[0].child.pid;

  await c.redis?.stop();
  const downAt = Date.now();
  const liveMs: number[] = [];
  let requests = 0;
  // Three rounds over ~3 s: the answer must not depend on how long Redis has been gone.
  for (let round = 0; round < 3; round++) {
    for (const url of [
      '/predict/predictions/',
      `/predict/precomputed/${m1}`,
      '/predict/cards/',
      '/predict/odds/',
      '/healthcheck/',
      '/livescores/?year=2026',
    ]) {
      const r = await get(api.base, url);
      requests++;
      assert.equal(r.status, 200, `${url} with Redis down: ${r.text.slice(0, 200)}`);
    }
    for (const url of [`/predict/${c.matchIds[5 + round]}`, '/predict/model/info']) {
      const r = await get(api.base, url, 5000);
      requests++;
      assert.equal(r.status, 503, `${url} with Redis down: ${r.text.slice(0, 200)}`);
      assert.equal(r.json.code, 'MC_ERR_BROKER_UNAVAILABLE');
      assert.ok(r.ms < 1000, `${url}: 503 in ${r.ms} ms`);
      liveMs.push(r.ms);
    }
    const status = await get(api.base, '/monitoring/celery/queues');
    assert.equal(status.status, 503, 'queue stats say the broker is gone');
    await sleep(800);
  }

  await c.redis?.start();
  const upAt = Date.now();
  // The new Redis is empty: the worker re-registers and the API's producer reconnects by themselves.
  await waitFor(
    'live predictions again',
    async () => (await get(api.base, `/predict/${c.matchIds[9]}`, 5000)).status === 200,
    20_000,
    100,
  );
  const recoveredMs = Date.now() - upAt;
  const info = await get(api.base, '/predict/model/info');
  assert.equal(info.status, 200, info.text);
  await waitFor(
    'the worker to be listed again',
    async () => (await get(api.base, '/monitoring/celery/workers')).json?.length === 1,
    15_000,
    250,
  );
  assert.equal(api.proc.child.pid, apiPid);
  assert.ok(api.proc.running() && c.workers[0].running(), 'no process restarted');
  assert.equal(c.workers[0].child.pid, workerPid);
  liveMs.sort((a, b) => a - b);
  console.log(
    `# Redis down ${upAt - downAt} ms: ${requests} requests, live/model-info 503 in ` +
      `${liveMs[0].toFixed(1)}–${liveMs[liveMs.length - 1].toFixed(1)} ms; live 200 again ${recoveredMs} ms after Redis returned`,
  );
  assert.ok(recoveredMs < 10_000, `full service within seconds (${recoveredMs} ms)`);
});
