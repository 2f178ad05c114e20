// GET /monitoring/performance and /monitoring/promotion on the real app: open like the other monitoring
// routes, closed by MONITORING_REQUIRE_KEY, documented in /openapi.json, `available: false` before any run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

test('open by default: nothing computed yet, gauges absent rather than 0', async () => {
  const { app } = await embeddedApp();
  try {
    const perf = await app.inject({ method: 'GET', url: '/monitoring/performance' });
    assert.equal(perf.statusCode, 200);
    const body = perf.json();
    assert.equal(body.available, false);
    assert.deepEqual(body.groups, []);
    assert.equal(body.window.matches, 300);
    const promo = await app.inject({ method: 'GET', url: '/monitoring/promotion' });
    assert.equal(promo.statusCode, 200);
    assert.equal(promo.json().available, false);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.doesNotMatch(metrics, /^matchcast_realised_log_loss\{/m, 'no realised series without figures');
    assert.match(metrics, /^matchcast_results_last_new_timestamp_seconds nan$/im);
    const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(spec.paths['/monitoring/performance']?.get, 'documented');
    assert.ok(spec.paths['/monitoring/promotion']?.get, 'documented');
    assert.equal((await app.inject({ method: 'GET', url: '/monitoring/performance?x=1' })).statusCode, 422);
  } finally {
    await app.close();
  }
});

test('MONITORING_REQUIRE_KEY=true closes both routes (401 without the key, 200 with it)', async () => {
  const { app } = await embeddedApp({ MONITORING_REQUIRE_KEY: 'true' });
  try {
    for (const url of ['/monitoring/performance', '/monitoring/promotion']) {
      assert.equal((await app.inject({ method: 'GET', url })).statusCode, 401, url);
      const ok = await app.inject({ method: 'GET', url, headers: { 'x-api-key': TEST_API_KEY } });
      assert.equal(ok.statusCode, 200, url);
    }
  } finally {
    await app.close();
  }
});
