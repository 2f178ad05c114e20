// The API key never reaches a log line or an error body (a full session: 200, 401, 404, 413, 422 and a
// real 500); CORS denies by default and allows a configured origin; monitoring routes are open by default and
// behind the key with MONITORING_REQUIRE_KEY=true.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildApp } from '../../src/api/index.js';
import type { Config } from '../../src/config.js';
import { KEYS } from '../../src/domain/index.js';
import { readPublished, servedRef } from '../../src/runs/index.js';
import { type EmbeddedApp, startEmbeddedApp } from '../contract/harness.js';

let app: EmbeddedApp;
before(async () => {
  app = await startEmbeddedApp();
});
after(async () => {
  await app?.close();
});

test('the API key never appears in a log line or a response body, through 200/401/404/413/422/500', async () => {
  const key = app.apiKey;
  const nearMiss = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
  const bodies: string[] = [];
  const statuses = new Set<number>();
  const send = async (url: string, init: RequestInit & { key?: string | null } = {}) => {
    const res = await app.fetch(url, init);
    statuses.add(res.status);
    const headers: string[] = [];
    res.headers.forEach((v, k) => {
      headers.push(`${k}: ${v}`);
    });
    bodies.push(`${headers.join('\n')}\n${await res.text()}`);
  };
  // First (before a worker thread has loaded the features file), a real 500: the file is corrupt.
  // The served features are the published run's copy, not the legacy top-level key.
  const ref = servedRef(await readPublished(app.ctx.db), 'features') ?? KEYS.features;
  const original = await app.ctx.store.get(ref.bucket, ref.key);
  await app.ctx.store.put(ref.bucket, ref.key, Buffer.from(`PAR1 corrupt ${key}`));
  try {
    await send(`/predict/${app.futureMatchId + 1}`);
  } finally {
    await app.ctx.store.put(ref.bucket, ref.key, original!.body);
  }
  // Successes and routine failures, the key sent the ways a careless client might.
  await send('/predict/predictions/');
  await send(`/predict/${app.futureMatchId}`);
  await send('/predict/async/', {
    method: 'POST',
    body: JSON.stringify({ match_id: app.futureMatchId }),
    headers: { 'content-type': 'application/json' },
  });
  await send('/predict/cards/', { key: nearMiss });
  await send('/predict/cards/', { key: `${key}${key}` });
  await send(`/predict/cards/?api_key=${key}`, { key: null });
  await send(`/predict/precomputed/${key}`);
  await send(`/livescores/?year=${key}`);
  await send(`/livescores/?${key}=1`);
  await send(`/no/such/${key}`);
  await send('/predict/async/', {
    method: 'POST',
    body: JSON.stringify({ match_id: key, api_key: key }),
    headers: { 'content-type': 'application/json' },
  });
  await send('/predict/async/', {
    method: 'POST',
    body: JSON.stringify({ api_key: key, pad: 'x'.repeat(app.config.bodyLimitBytes) }),
    headers: { 'content-type': 'application/json' },
  });
  await send('/predict/async/', {
    method: 'POST',
    body: `{"x":"${key}"`,
    headers: { 'content-type': 'application/json' },
  });
  // Config and headers logged explicitly, as a careless module might: redaction still applies.
  app.ctx.log.info({ config: app.config, headers: { 'x-api-key': key } }, 'debug dump');

  for (const s of [200, 202, 401, 404, 413, 422, 500])
    assert.ok(statuses.has(s), `status ${s} exercised: ${[...statuses]}`);
  assert.ok(app.logs.length > 10, 'log lines captured');
  for (const secret of [key, nearMiss]) {
    const inLogs = app.logs.filter((l) => l.includes(secret));
    assert.deepEqual(inLogs, [], 'log lines containing a key');
    // Except one: a 422 names an unknown query parameter as the caller spelled it, so a caller who
    // uses their key as a parameter *name* gets their own input back. That is an echo, not a leak.
    const inBodies = bodies.filter((b) => b.includes(secret) && !b.includes('"msg":"unknown field"'));
    assert.deepEqual(inBodies, [], 'responses containing a key');
  }
  assert.ok(
    app.logs.some((l) => l.includes('[redacted]')),
    'the explicit dump was redacted',
  );
});

async function variant(overrides: Partial<Config>) {
  const a = await buildApp({ ...app.ctx, config: { ...app.config, ...overrides } }, { logRequests: false });
  await a.ready();
  return a;
}

test('CORS: no Access-Control-Allow-Origin by default; a configured origin is allowed, others not', async () => {
  const preflight = (origin: string) => ({
    method: 'OPTIONS' as const,
    url: '/predict/cards/',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-api-key',
    },
  });
  // Default (CORS_ALLOWED_ORIGINS empty) — the running embedded app.
  const def = await fetch(`${app.url}/predict/cards/`, {
    headers: { origin: 'https://evil.example', 'x-api-key': app.apiKey },
  });
  await def.arrayBuffer();
  assert.equal(def.headers.get('access-control-allow-origin'), null);
  const defPre = await fetch(`${app.url}/predict/cards/`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
  });
  await defPre.arrayBuffer();
  assert.equal(defPre.headers.get('access-control-allow-origin'), null);

  const allowed = 'https://ui.example.com';
  const cors = await variant({ corsAllowedOrigins: [allowed] });
  try {
    const ok = await cors.inject({
      method: 'GET',
      url: '/predict/cards/',
      headers: { origin: allowed, 'x-api-key': app.apiKey },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], allowed);
    assert.equal(ok.headers['access-control-expose-headers'], 'X-Request-Id, ETag');
    const pre = await cors.inject(preflight(allowed));
    assert.ok(pre.statusCode < 300, `preflight ${pre.statusCode}`);
    assert.equal(pre.headers['access-control-allow-origin'], allowed);
    assert.equal(pre.headers['access-control-allow-headers'], 'X-API-Key, Content-Type, X-Request-Id');
    assert.equal(pre.headers['access-control-allow-methods'], 'GET, POST, OPTIONS');
    const other = await cors.inject({
      method: 'GET',
      url: '/predict/cards/',
      headers: { origin: 'https://evil.example', 'x-api-key': app.apiKey },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const otherPre = await cors.inject(preflight('https://ui.example.com.evil.example'));
    assert.equal(otherPre.headers['access-control-allow-origin'], undefined);
  } finally {
    await cors.close();
  }
});

test('monitoring routes: open by default (spec §5 rule 5), behind the key with MONITORING_REQUIRE_KEY=true', async () => {
  const routes = [
    '/monitoring/drift',
    '/monitoring/celery/queues',
    '/monitoring/celery/workers',
    '/monitoring/task_status/abc',
    '/monitoring/reports',
  ];
  for (const url of routes) {
    const res = await app.fetch(url, { key: null });
    await res.arrayBuffer();
    assert.equal(res.status, 200, `${url} open by default`);
  }
  const locked = await variant({ monitoringRequireKey: true });
  try {
    for (const url of [...routes, '/monitoring/reports/drift_report_20260101T000000Z.html']) {
      const none = await locked.inject({ method: 'GET', url });
      assert.equal(none.statusCode, 401, `${url} without key`);
      assert.equal(none.json().code, 'MC_ERR_UNAUTHORIZED');
      const wrong = await locked.inject({ method: 'GET', url, headers: { 'x-api-key': 'nope' } });
      assert.equal(wrong.statusCode, 401, `${url} wrong key`);
      const right = await locked.inject({ method: 'GET', url, headers: { 'x-api-key': app.apiKey } });
      assert.notEqual(right.statusCode, 401, `${url} with the key`);
    }
    // The other exempt routes stay open.
    for (const url of ['/', '/healthcheck/', '/metrics', '/livescores/']) {
      assert.notEqual((await locked.inject({ method: 'GET', url })).statusCode, 401, url);
    }
  } finally {
    await locked.close();
  }
});
