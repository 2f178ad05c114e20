import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

let app: FastifyInstance;
before(async () => {
  ({ app } = await embeddedApp());
});
after(async () => app.close());

test('a percent-encoded /predict path needs the key like the plain one', async () => {
  for (const url of [
    '/predict/predictions/',
    '/%70redict/predictions/',
    '/predict/%31',
    '/pre%64ict/model/info',
  ]) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 401, url);
    assert.equal(res.json().code, 'MC_ERR_UNAUTHORIZED');
  }
  const ok = await app.inject({ url: '/%70redict/predictions/', headers: { 'x-api-key': TEST_API_KEY } });
  assert.notEqual(ok.statusCode, 401);
});

test('every response has X-Request-Id and the security headers; a plain caller id is echoed', async () => {
  for (const url of ['/', '/healthcheck/', '/nope', '/predict/1']) {
    const res = await app.inject({ url });
    assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._-]{1,64}$/, url);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/, url);
  }
  const echoed = await app.inject({ url: '/', headers: { 'x-request-id': 'abc-123' } });
  assert.equal(echoed.headers['x-request-id'], 'abc-123');
  const forged = await app.inject({ url: '/', headers: { 'x-request-id': 'a\nb' } });
  assert.notEqual(forged.headers['x-request-id'], 'a\nb');
});

test('CORS is denied by default: no Access-Control-Allow-Origin', async () => {
  const res = await app.inject({ url: '/healthcheck/', headers: { origin: 'https://evil.example' } });
  assert.equal(res.headers['access-control-allow-origin'], undefined);
});

test('metrics label the route template, never the raw URL', async () => {
  await app.inject({ url: '/predict/12345', headers: { 'x-api-key': TEST_API_KEY } });
  const text = (await app.inject({ url: '/metrics' })).body;
  assert.match(text, /http_requests_total\{method="GET",path="\/predict\/\{match_id\}",status_code="\d+"\}/);
  assert.doesNotMatch(text, /path="\/predict\/12345"/);
});
