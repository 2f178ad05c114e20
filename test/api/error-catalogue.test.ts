// Walks the error catalogue, as Fastify's tests walk FST_ERR_*: every MC_ERR_* code
// is either provoked here over HTTP against the real app and asserted on (status, code, body shape), or
// listed with the test that provokes it where it needs a fault this file cannot stage. A code added
// to src/domain/errors.ts without either fails this test; so does one missing from docs/errors.md.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/index.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

const KEY = { 'x-api-key': TEST_API_KEY };
const JSON_CT = { ...KEY, 'content-type': 'application/json' };

/** Requests that provoke a code on a fresh app (no predictions loaded, in-process queue). */
const PROVOKE: Partial<
  Record<ErrorCode, { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; body?: string }>
> = {
  MC_ERR_VALIDATION: { url: '/predict/precomputed/abc', headers: KEY },
  MC_ERR_UNAUTHORIZED: { url: '/predict/cards/' },
  MC_ERR_NOT_FOUND: { url: '/no/such/route' },
  MC_ERR_BAD_STAGE: { url: '/predict/model/info?stage=nope', headers: KEY },
  MC_ERR_PREDICTIONS_UNAVAILABLE: { url: '/predict/precomputed/1', headers: KEY },
  // No pipeline run yet, so no goals model: the live markets answer at once, nothing queued.
  MC_ERR_GOALS_MODEL_UNAVAILABLE: { url: '/predict/markets/1?live=true', headers: KEY },
  MC_ERR_PAYLOAD_TOO_LARGE: {
    method: 'POST',
    url: '/predict/async/',
    headers: JSON_CT,
    body: JSON.stringify({ match_id: 1, pad: 'x'.repeat(2_000_000) }),
  },
  MC_ERR_INVALID_JSON: { method: 'POST', url: '/predict/async/', headers: JSON_CT, body: '{"match_id":' },
  MC_ERR_UNSUPPORTED_MEDIA_TYPE: {
    method: 'POST',
    url: '/predict/async/',
    headers: { ...KEY, 'content-type': 'application/xml' },
    body: '<match_id>1</match_id>',
  },
  MC_ERR_BAD_REQUEST: { url: '/predict/%ZZ', headers: KEY },
  MC_ERR_FORBIDDEN: { url: '/files/reports/x.html?expires=1&signature=00' },
  // The API key over loopback is not the admin key.
};

/** Codes provoked elsewhere (a fault this file does not stage, or not an HTTP answer), with the test. */
const ELSEWHERE: Partial<Record<ErrorCode, string>> = {
  MC_ERR_MATCH_NOT_FOUND: 'test/api/precomputed.test.ts, test/api/live-redis.test.ts (needs loaded data)',
  MC_ERR_NO_EXPLANATION: 'test/api/explain.test.ts (needs a published run)',
  MC_ERR_BROKER_UNAVAILABLE: 'test/ops/redis-down.test.ts',
  MC_ERR_QUEUE_FULL: 'test/queue/limits.test.ts',
  MC_ERR_TASK_EXPIRED: 'test/queue/limits.test.ts',
  MC_ERR_TASK_TIMEOUT: 'test/ops/worker-faults.test.ts',
  MC_ERR_TASK_FAILED: 'test/contract/shared-contract.test.ts',
  MC_ERR_MODEL_UNAVAILABLE: 'test/model/model.test.ts',
  MC_ERR_FEATURES_MISMATCH: 'test/runs/safe-runs.test.ts',
  MC_ERR_NOT_OUT_OF_SAMPLE: 'test/runs/safe-runs.test.ts',
  MC_ERR_DATABASE_UNAVAILABLE: 'test/ops/dependency-faults.test.ts',
  MC_ERR_STORE_UNAVAILABLE: 'test/ops/dependency-faults.test.ts',
  MC_ERR_REQUEST_TIMEOUT: 'test/ops/hardening.test.ts (a body sent slowly)',
  MC_ERR_INTERNAL: 'test/contract/shared-contract.test.ts (a 500 carries a request_id)',
  MC_ERR_UI_UNAVAILABLE: 'test/web/ui-routes.test.ts (UI not built)',
  // Not HTTP answers of the API: raised by the CLI, the pipeline or the stores.
  MC_ERR_ARTIFACT_INTEGRITY: 'test/runs/run-records.test.ts, test/registry/registry.test.ts',
  MC_ERR_GATE_FAILED: 'test/runs/safe-runs.test.ts',
  MC_ERR_INVALID_KEY: 'test/storage/create-object-store.test.ts',
  MC_ERR_CONFIG: 'test/unit/config.test.ts',
  MC_ERR_CONFLICT: 'test/registry/registry.test.ts, test/runs/run-records.test.ts',
  MC_ERR_PROMOTION_REFUSED: 'test/pipeline/promotion-guard.test.ts',
  MC_ERR_DATASET_MISMATCH: 'test/cli/dataset-record.test.ts',
  // Per-row codes of an ingest report (skipped rows).
  MC_ERR_INVALID_ROW: 'test/ingest/ingest-path.test.ts, test/ingest/strict-dates.test.ts',
  MC_ERR_INVALID_DATE: 'test/ingest/strict-dates.test.ts',
  MC_ERR_OBSERVED_IN_FUTURE: 'test/ingest/strict-dates.test.ts',
  MC_ERR_SOURCE_UNREACHABLE: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_TIMEOUT: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_TRUNCATED: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_EMPTY: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_LAYOUT_CHANGED: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_SHRUNK: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_ENCODING: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_ROWS_SKIPPED: 'test/sources/faults.test.ts',
  MC_ERR_SOURCE_UNKNOWN_TEAMS: 'test/sources/faults.test.ts',
};

let app: FastifyInstance;
let port: number;

before(async () => {
  ({ app } = await embeddedApp({ BODY_LIMIT_BYTES: '65536' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  port = typeof a === 'object' && a ? a.port : 0;
});
after(async () => {
  await app?.close();
});

test('every catalogue code is provoked here or names the test that provokes it', () => {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const uncovered = codes.filter((c) => !PROVOKE[c] && !ELSEWHERE[c] && c !== 'MC_ERR_HEADERS_TOO_LARGE');
  assert.deepEqual(uncovered, [], 'add a provocation (or the test that provokes it) for each new code');
  for (const c of Object.keys(ELSEWHERE)) assert.ok(c in ERROR_CATALOGUE, `${c} is still in the catalogue`);
});

for (const [code, req] of Object.entries(PROVOKE) as [
  ErrorCode,
  NonNullable<(typeof PROVOKE)[ErrorCode]>,
][]) {
  test(`${code}: ${req.method ?? 'GET'} ${req.url.slice(0, 60)} answers ${ERROR_CATALOGUE[code].status} with the code`, async () => {
    const res = await fetch(`http://127.0.0.1:${port}${req.url}`, {
      method: req.method ?? 'GET',
      headers: req.headers,
      body: req.body,
    });
    const body = (await res.json()) as { detail: unknown; code: string; request_id?: string };
    assert.equal(res.status, ERROR_CATALOGUE[code].status);
    assert.equal(body.code, code);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(res.headers.get('x-request-id'), 'X-Request-Id');
    assert.ok(
      typeof body.detail === 'string' ? body.detail.length > 0 : Array.isArray(body.detail),
      'detail is a message or the list of invalid fields',
    );
    if (res.status >= 500) assert.equal(body.request_id, res.headers.get('x-request-id'));
  });
}

test('MC_ERR_HEADERS_TOO_LARGE: Node rejects the request line, the answer is still coded JSON', async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /healthcheck/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    });
    let out = '';
    socket.on('data', (d) => {
      out += d.toString();
    });
    socket.on('close', () => resolve(out));
    socket.on('error', (err) => (out ? resolve(out) : reject(err)));
    socket.setTimeout(10_000, () => socket.destroy());
  });
  assert.match(raw, /^HTTP\/1\.1 431 /);
  const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { code: string };
  assert.equal(body.code, 'MC_ERR_HEADERS_TOO_LARGE');
});

test('strict JSON bodies: no type coercion ({"match_id": true} and "1" are 422, not match 1)', async () => {
  for (const body of [
    '{"match_id": true}',
    '{"match_id": "1"}',
    '{"match_id": 1.5}',
    '{"match_id": 1e400}',
  ]) {
    const res = await app.inject({ method: 'POST', url: '/predict/async/', headers: JSON_CT, payload: body });
    assert.equal(res.statusCode, 422, body);
    const parsed = res.json() as { code: string; detail: { loc: unknown[] }[] };
    assert.equal(parsed.code, 'MC_ERR_VALIDATION');
    assert.deepEqual(parsed.detail[0]?.loc, ['body', 'match_id'], body);
  }
  // Path and query strings are still coerced to the declared integer; non-finite ones are refused.
  assert.equal((await app.inject({ url: '/livescores/?year=2024&limit=1' })).statusCode !== 422, true);
  for (const [url, loc] of [
    ['/livescores/?year=Infinity', ['query', 'year']],
    ['/livescores/?year=-Infinity', ['query', 'year']],
    ['/livescores/?year=1e400', ['query', 'year']],
    ['/livescores/?year=2024&limit=Infinity', ['query', 'limit']],
    ['/predict/precomputed/Infinity', ['path', 'match_id']],
    ['/predict/precomputed/1e400', ['path', 'match_id']],
    ['/predict/Infinity', ['path', 'match_id']],
  ] as const) {
    const res = await app.inject({ url, headers: KEY });
    const body = res.json() as { code: string; detail: { loc: unknown[] }[] };
    assert.deepEqual([res.statusCode, body.code], [422, 'MC_ERR_VALIDATION'], url);
    assert.deepEqual(body.detail[0]?.loc, loc, url);
  }
});

test('a body of another content type (text/plain, form, none) is 415 MC_ERR_UNSUPPORTED_MEDIA_TYPE, not a 422', async () => {
  for (const type of [
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    undefined,
  ]) {
    const res = await fetch(`http://127.0.0.1:${port}/predict/async/`, {
      method: 'POST',
      headers: type === undefined ? KEY : { ...KEY, 'content-type': type },
      body: type === undefined ? new Blob(['{"match_id": 1}']) : '{"match_id": 1}',
    });
    const body = (await res.json()) as { code: string };
    assert.deepEqual([res.status, body.code], [415, 'MC_ERR_UNSUPPORTED_MEDIA_TYPE'], String(type));
  }
});

test('docs/errors.md documents every code of the catalogue', async () => {
  const doc = await readFile(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
  const missing = Object.keys(ERROR_CATALOGUE).filter((c) => !doc.includes(`\`${c}\``));
  assert.deepEqual(missing, []);
});
