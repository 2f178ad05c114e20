// The contract every route shares (spec §1, §4, §5, §7, §9), asserted on one real
// embedded app: auth rules 1–4 of spec §5 for every route of the spec's table plus POST /predict/async/,
// 422 with {loc, msg, type}, {detail} errors, X-Request-Id on every response, a 500 that carries the
// request_id its log line also carries, OpenAPI with ApiKeyAuth on the protected routes, /metrics.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { KEYS } from '../../src/domain/index.js';
import { readPublished, servedRef } from '../../src/runs/index.js';
import { type EmbeddedApp, startEmbeddedApp } from './harness.js';

const run = promisify(execFile);
let app: EmbeddedApp;
let reportName: string;
/** Every response any test here received: each must carry X-Request-Id. */
const seen: Array<{ route: string; status: number; requestId: string | null }> = [];

async function call(
  method: string,
  pathname: string,
  init: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await app.fetch(pathname, {
    method,
    key: init.key,
    headers,
    redirect: 'manual',
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  seen.push({
    route: `${method} ${pathname}`,
    status: res.status,
    requestId: res.headers.get('x-request-id'),
  });
  return { status: res.status, body, headers: res.headers, text };
}

interface RouteCase {
  method: 'GET' | 'POST';
  /** The spec's path (table of §4) and a concrete URL for it. */
  spec: string;
  url: () => string;
  body?: unknown;
  protected: boolean;
  /** Status with the right key (or without a key on an open route). */
  ok: number;
}

const ROUTES: RouteCase[] = [
  { method: 'GET', spec: '/', url: () => '/', protected: false, ok: 200 },
  { method: 'GET', spec: '/healthcheck/', url: () => '/healthcheck/', protected: false, ok: 200 },
  { method: 'GET', spec: '/metrics', url: () => '/metrics', protected: false, ok: 200 },
  {
    method: 'GET',
    spec: '/predict/predictions/',
    url: () => '/predict/predictions/',
    protected: true,
    ok: 200,
  },
  {
    method: 'GET',
    spec: '/predict/precomputed/{match_id}',
    url: () => `/predict/precomputed/${app.anyMatchId}`,
    protected: true,
    ok: 200,
  },
  { method: 'GET', spec: '/predict/cards/', url: () => '/predict/cards/', protected: true, ok: 200 },
  {
    method: 'GET',
    spec: '/predict/region-roi/',
    url: () => '/predict/region-roi/',
    protected: true,
    ok: 200,
  },
  { method: 'GET', spec: '/predict/odds/', url: () => '/predict/odds/', protected: true, ok: 200 },
  {
    method: 'GET',
    spec: '/predict/{match_id}',
    url: () => `/predict/${app.futureMatchId}`,
    protected: true,
    ok: 200,
  },
  { method: 'GET', spec: '/predict/model/info', url: () => '/predict/model/info', protected: true, ok: 200 },
  { method: 'GET', spec: '/livescores/', url: () => '/livescores/', protected: false, ok: 200 },
  { method: 'GET', spec: '/monitoring/drift', url: () => '/monitoring/drift', protected: false, ok: 200 },
  {
    method: 'GET',
    spec: '/monitoring/celery/queues',
    url: () => '/monitoring/celery/queues',
    protected: false,
    ok: 200,
  },
  {
    method: 'GET',
    spec: '/monitoring/celery/workers',
    url: () => '/monitoring/celery/workers',
    protected: false,
    ok: 200,
  },
  {
    method: 'GET',
    spec: '/monitoring/task_status/{task_id}',
    url: () => '/monitoring/task_status/no-such-task',
    protected: false,
    ok: 200,
  },
  { method: 'GET', spec: '/monitoring/reports', url: () => '/monitoring/reports', protected: false, ok: 200 },
  {
    method: 'GET',
    spec: '/monitoring/reports/{filename}',
    url: () => `/monitoring/reports/${reportName}`,
    protected: false,
    ok: 307,
  },
  {
    method: 'POST',
    spec: '/predict/async/',
    url: () => '/predict/async/',
    body: { match_id: 1 },
    protected: true,
    ok: 202,
  },
];

async function metricValue(name: string, labels = ''): Promise<number> {
  const text = (await call('GET', '/metrics')).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels} `) || l.startsWith(`${name}${labels}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

before(async () => {
  app = await startEmbeddedApp();
  ROUTES.find((r) => r.spec === '/predict/async/')!.body = { match_id: app.futureMatchId };
});

after(async () => {
  await app?.close();
});

// First, while no worker thread has loaded the features file: a worker-side failure is a 500 whose
// body carries the request_id that the server's log lines also carry (spec §7).
test('a 500 carries a request_id and the log line of that request carries it too', async () => {
  // The published run's features object, corrupted in place.
  const ref = servedRef(await readPublished(app.ctx.db), 'features') ?? KEYS.features;
  const original = await app.ctx.store.get(ref.bucket, ref.key);
  assert.ok(original, 'features file present after the first-run pipeline');
  await app.ctx.store.put(ref.bucket, ref.key, Buffer.from('PAR1 this is not parquet'));
  try {
    const res = await call('GET', `/predict/${app.futureMatchId}`);
    assert.equal(res.status, 500, res.text);
    const body = res.body as { detail: unknown; code: string; request_id: string };
    assert.equal(body.code, 'MC_ERR_TASK_FAILED');
    assert.equal(typeof body.detail, 'string');
    assert.match(body.request_id, /^[A-Za-z0-9._-]+$/);
    assert.equal(res.headers.get('x-request-id'), body.request_id);
    const lines = app.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = lines.filter((l) => l.request_id === body.request_id);
    assert.ok(
      mine.some((l) => l.status === 500),
      `a log line with request_id ${body.request_id} and status 500`,
    );
    assert.ok(
      mine.some((l) => l.level === 40 || l.level === 50),
      'the failure itself is logged (warn/error) with the request_id',
    );
  } finally {
    await app.ctx.store.put(ref.bucket, ref.key, original.body);
  }
  // The failed load is not cached: the next request reads the restored file.
  const again = await call('GET', `/predict/${app.futureMatchId}`);
  assert.equal(again.status, 200, again.text);
});

test('auth rules 1–4 (spec §5) on every route of the spec table plus POST /predict/async/', async () => {
  const reports = (await call('GET', '/monitoring/reports')).body as Array<{ filename: string }>;
  assert.ok(reports.length > 0, 'the first-run pipeline wrote a drift report');
  reportName = reports[0]!.filename;
  const wrongSameLength = app.apiKey.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
  const asyncBefore = await metricValue('prediction_requests_total', '{source="async"}');
  const syncBefore = await metricValue('prediction_requests_total', '{source="sync"}');
  for (const r of ROUTES) {
    const label = `${r.method} ${r.spec}`;
    if (r.protected) {
      for (const key of [
        null,
        '',
        'wrong',
        wrongSameLength,
        `${app.apiKey}x`,
        app.apiKey.slice(0, -1),
        'cl\u00e9',
      ]) {
        const res = await call(r.method, r.url(), { key, body: r.body });
        assert.equal(res.status, 401, `${label} with key ${JSON.stringify(key)}`);
        assert.deepEqual(
          res.body,
          { detail: 'Missing or invalid API key', code: 'MC_ERR_UNAUTHORIZED' },
          label,
        );
      }
      // Rule 2, "no work is done": even an invalid body is not looked at before the key.
      if (r.method === 'POST') {
        const res = await call(r.method, r.url(), { key: null, body: { match_id: 'x', nope: 1 } });
        assert.equal(res.status, 401, `${label}: 401 before validation`);
      }
    }
    // Rule 3 (with the key: not 401) and rule 4 (exempt routes open without a key).
    const res = await call(r.method, r.url(), { key: r.protected ? app.apiKey : null, body: r.body });
    assert.equal(res.status, r.ok, `${label}: ${res.text.slice(0, 300)}`);
    if (!r.protected) {
      const withKey = await call(r.method, r.url(), { body: r.body });
      assert.notEqual(withKey.status, 401, `${label} with a key`);
      const withWrong = await call(r.method, r.url(), { key: 'wrong', body: r.body });
      assert.notEqual(withWrong.status, 401, `${label} with a wrong key stays open`);
    }
  }
  // The prefix rule covers paths no route has, and methods other than GET/POST.
  for (const url of ['/predict', '/predict/', '/predict/nothing/here', '/PREDICT/cards/', '/predict/batch']) {
    assert.equal((await call('GET', url, { key: null })).status, 401, url);
  }
  assert.equal((await call('POST', '/predict', { key: null, body: {} })).status, 401);
  // No task was dispatched by any of the 401s: exactly one async and one sync dispatch came from above.
  assert.equal(await metricValue('prediction_requests_total', '{source="async"}'), asyncBefore + 1);
  assert.ok((await metricValue('prediction_requests_total', '{source="sync"}')) <= syncBefore + 1);
});

test('validation failures are 422 with {detail: [{loc, msg, type}]} naming each invalid field', async () => {
  const cases: Array<{ method: string; url: string; body?: unknown; locs: string[][] }> = [
    { method: 'GET', url: '/livescores/?year=abc', locs: [['query', 'year']] },
    {
      method: 'GET',
      url: '/livescores/?month=13&limit=0',
      locs: [
        ['query', 'month'],
        ['query', 'limit'],
      ],
    },
    { method: 'GET', url: '/livescores/?bogus=1', locs: [['query', 'bogus']] },
    { method: 'GET', url: '/predict/precomputed/abc', locs: [['path', 'match_id']] },
    { method: 'GET', url: '/predict/not-a-number', locs: [['path', 'match_id']] },
    // Ajv coerces "Infinity" to a number that passes integer/minimum/maximum: caught by the app.
    { method: 'GET', url: '/predict/Infinity', locs: [['path', 'match_id']] },
    { method: 'GET', url: '/livescores/?year=-Infinity', locs: [['query', 'year']] },
    { method: 'POST', url: '/predict/async/', body: { match_id: 'Infinity' }, locs: [['body', 'match_id']] },
    { method: 'GET', url: `/predict/${app.futureMatchId}?stage=champion&x=1`, locs: [['query', 'x']] },
    { method: 'GET', url: '/predict/model/info?unknown=1', locs: [['query', 'unknown']] },
    { method: 'GET', url: '/predict/predictions/?page=2', locs: [['query', 'page']] },
    {
      method: 'POST',
      url: '/predict/async/',
      body: { match_id: 'x', extra: true },
      locs: [
        ['body', 'match_id'],
        ['body', 'extra'],
      ],
    },
    { method: 'POST', url: '/predict/async/', body: {}, locs: [['body', 'match_id']] },
  ];
  for (const c of cases) {
    const res = await call(c.method, c.url, { body: c.body });
    assert.equal(res.status, 422, `${c.url}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const detail = (res.body as { detail: Array<{ loc: unknown[]; msg: string; type: string }> }).detail;
    assert.ok(Array.isArray(detail) && detail.length > 0, c.url);
    for (const d of detail) {
      assert.ok(Array.isArray(d.loc) && d.loc.length >= 1, `${c.url}: loc`);
      assert.equal(typeof d.msg, 'string');
      assert.ok(d.msg.length > 0);
      assert.equal(typeof d.type, 'string');
    }
    for (const loc of c.locs) {
      assert.ok(
        detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc)),
        `${c.url}: ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`,
      );
    }
  }
});

test('errors are JSON {detail} with a stable code (404, 400, 401, 413, 415)', async () => {
  const cases: Array<{
    method: string;
    url: string;
    status: number;
    code: string;
    body?: unknown;
    ct?: string;
  }> = [
    { method: 'GET', url: '/no/such/route', status: 404, code: 'MC_ERR_NOT_FOUND' },
    { method: 'GET', url: '/predict/precomputed/999999999', status: 404, code: 'MC_ERR_MATCH_NOT_FOUND' },
    { method: 'GET', url: '/predict/999999999', status: 404, code: 'MC_ERR_MATCH_NOT_FOUND' },
    {
      method: 'GET',
      url: `/predict/${app.futureMatchId}?stage=candidate`,
      status: 400,
      code: 'MC_ERR_BAD_STAGE',
    },
    { method: 'GET', url: '/predict/model/info?stage=nope', status: 400, code: 'MC_ERR_BAD_STAGE' },
    { method: 'GET', url: '/monitoring/reports/passwd', status: 404, code: 'MC_ERR_NOT_FOUND' },
    {
      method: 'POST',
      url: '/predict/async/',
      body: JSON.stringify({ match_id: 1, pad: 'x'.repeat(app.config.bodyLimitBytes) }),
      status: 413,
      code: 'MC_ERR_PAYLOAD_TOO_LARGE',
    },
    {
      method: 'POST',
      url: '/predict/async/',
      body: 'match_id=1',
      ct: 'application/x-www-form-urlencoded',
      status: 415,
      code: 'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
    },
    {
      method: 'POST',
      url: '/predict/async/',
      body: '{"match_id":',
      status: 400,
      code: 'MC_ERR_INVALID_JSON',
    },
  ];
  for (const c of cases) {
    const res = await call(c.method, c.url, { body: c.body, headers: c.ct ? { 'content-type': c.ct } : {} });
    assert.equal(res.status, c.status, `${c.method} ${c.url}: ${res.text.slice(0, 200)}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/, c.url);
    const body = res.body as { detail: unknown; code: string };
    assert.ok(typeof body.detail === 'string' && body.detail.length > 0, `${c.url}: detail`);
    assert.equal(body.code, c.code, c.url);
  }
});

test('X-Request-Id: on every response, a plain caller id is echoed, an unsafe one replaced', async () => {
  const echoed = await call('GET', '/healthcheck/', { headers: { 'x-request-id': 'abc-123.x_y' } });
  assert.equal(echoed.headers.get('x-request-id'), 'abc-123.x_y');
  const forged = await call('GET', '/healthcheck/', {
    headers: { 'x-request-id': `a b\tc${'x'.repeat(100)}` },
  });
  const replaced = forged.headers.get('x-request-id') ?? '';
  assert.match(replaced, /^[0-9a-f-]{36}$/);
  const unauthorized = await call('GET', '/predict/cards/', { key: null });
  assert.ok(unauthorized.headers.get('x-request-id'));
  assert.ok(seen.length > 100, `responses checked: ${seen.length}`);
  const missing = seen.filter((s) => !s.requestId);
  assert.deepEqual(missing, [], 'responses without X-Request-Id');
  const statuses = new Set(seen.map((s) => s.status));
  for (const s of [200, 202, 307, 400, 401, 404, 413, 415, 422, 500])
    assert.ok(statuses.has(s), `status ${s} seen`);
});

test('OpenAPI at /openapi.json and /docs: ApiKeyAuth attached to every protected route and no other', async () => {
  const res = await call('GET', '/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.body as {
    openapi: string;
    components: { securitySchemes: Record<string, unknown> };
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
  };
  assert.match(doc.openapi, /^3\./);
  assert.deepEqual(doc.components.securitySchemes.ApiKeyAuth, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
  });
  for (const r of ROUTES) {
    const op = doc.paths[r.spec]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${r.spec} in /openapi.json`);
    if (r.protected) assert.deepEqual(op.security, [{ ApiKeyAuth: [] }], `${r.spec} security`);
    else assert.ok(!op.security || op.security.length === 0, `${r.spec} is open`);
  }
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const needsKey = p === '/predict' || p.startsWith('/predict/');
      assert.equal(
        JSON.stringify(op.security ?? []) === JSON.stringify([{ ApiKeyAuth: [] }]),
        needsKey,
        `${method} ${p}`,
      );
    }
  }
  const docs = await call('GET', '/docs');
  const html =
    docs.status === 302 || docs.status === 301 ? await call('GET', docs.headers.get('location')!) : docs;
  assert.equal(html.status, 200);
  assert.match(html.text, /swagger/i);
  assert.equal((await call('GET', '/docs/json')).status, 200);
});

test('GET /metrics: every spec §4.2 metric, route templates as path labels, promtool check metrics', async (t) => {
  await call('GET', `/predict/precomputed/${app.anyMatchId}`);
  const res = await call('GET', '/metrics');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  for (const name of [
    'http_requests_total',
    'http_request_duration_seconds',
    'prediction_requests_total',
    'prediction_duration_seconds',
    'inference_duration_seconds',
    'prediction_confidence',
    'model_info',
    'model_registered_at_seconds',
    'model_feature_drift_score',
    'prediction_timeouts_total',
  ]) {
    assert.match(res.text, new RegExp(`^# TYPE ${name} `, 'm'), name);
  }
  assert.match(res.text, /http_requests_total\{[^}]*path="\/predict\/precomputed\/\{match_id\}"/);
  assert.doesNotMatch(res.text, new RegExp(`path="/predict/precomputed/${app.anyMatchId}"`));
  assert.doesNotMatch(res.text, /path="\/no\/such\/route"/, 'unmatched URLs never become labels');
  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
  if (!promtool) {
    t.skip('promtool not installed (apt-get install -y prometheus): exposition not linted');
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-metrics-'));
  try {
    const file = path.join(dir, 'metrics.txt');
    await writeFile(file, res.text);
    const { stdout, stderr } = await run('sh', ['-c', `${promtool} check metrics < ${file}`]).catch(
      (err: { stdout: string; stderr: string }) => {
        assert.fail(`promtool check metrics failed:\n${err.stdout}\n${err.stderr}`);
      },
    );
    assert.equal(`${stdout}${stderr}`.trim(), '', 'promtool reports no problem');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
