import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { predictionRows, putPredictions } from '../../bench/precomputed-fixtures.js';
import { hotPathOf } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { accessLineWriter } from '../../src/api/request-batch.js';
import { REDACT_PATHS } from '../../src/logger.js';
import { registry as metricsRegistry } from '../../src/metrics.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Headers that legitimately differ per response. */
function comparable(h: Raw['headers']): Record<string, unknown> {
  const { date: _d, 'x-request-id': _r, ...rest } = h;
  return rest;
}

async function serve(
  options: { hotPath?: boolean; env?: Record<string, string>; lines?: string[]; rows?: number } = {},
): Promise<{ app: FastifyInstance; ctx: AppContext; port: number }> {
  const lines = options.lines;
  const log = lines
    ? pino(
        { level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
        new Writable({
          write(chunk, _enc, cb) {
            lines.push(String(chunk));
            cb();
          },
        }),
      )
    : undefined;
  const { app, ctx } = await embeddedApp(options.env ?? {}, {
    app: { hotPath: options.hotPath, logRequests: lines !== undefined },
    log,
  });
  if (options.rows !== 0) await putPredictions(ctx.store, predictionRows({ n: options.rows ?? 200 }));
  await ctx.views.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, ctx, port: (app.server.address() as AddressInfo).port };
}

const KEY = { 'x-api-key': TEST_API_KEY };
const ROUTE = '/predict/precomputed/{match_id}';

describe('hot path of GET /predict/precomputed/{id}', () => {
  let hot: Awaited<ReturnType<typeof serve>>;
  let plain: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    hot = await serve();
    plain = await serve({ hotPath: false });
  });
  after(async () => {
    await hot.app.close();
    await plain.app.close();
  });

  test('answers a valid request itself with exactly the bytes and headers of the Fastify route', async () => {
    const state = hotPathOf(hot.app);
    assert.ok(state, 'the hot path is on by default');
    assert.equal(hotPathOf(plain.app), undefined);
    for (const path of ['/predict/precomputed/1', '/predict/precomputed/57', '/predict/precomputed/200/']) {
      const servedBefore: number = state.served;
      const a = await get(hot.port, path, KEY);
      assert.equal(state.served, servedBefore + 1, `${path} served by the hot path`);
      const b = await get(plain.port, path, KEY);
      assert.equal(a.status, 200);
      assert.equal(a.body, b.body);
      assert.deepEqual(comparable(a.headers), comparable(b.headers));
      assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(JSON.parse(a.body).match_id, Number(path.split('/')[3]));
    }
  });

  test('echoes a plain X-Request-Id and replaces a forged one, as Fastify does', async () => {
    const a = await get(hot.port, '/predict/precomputed/3', { ...KEY, 'x-request-id': 'client-id.42' });
    assert.equal(a.headers['x-request-id'], 'client-id.42');
    const b = await get(hot.port, '/predict/precomputed/3', { ...KEY, 'x-request-id': 'bad id\u00e9' });
    assert.match(String(b.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  test('every other case falls through to Fastify and gets the same answer as without the hot path', async () => {
    const state = hotPathOf(hot.app);
    assert.ok(state);
    const cases: Array<[string, Record<string, string>, string?]> = [
      ['/predict/precomputed/5', {}], // no key → 401
      ['/predict/precomputed/5', { 'x-api-key': 'wrong' }], // wrong key → 401
      ['/predict/precomputed/5', { 'x-api-key': `${TEST_API_KEY}x` }], // longer key → 401
      ['/predict/precomputed/999999', KEY], // absent → 404
      ['/predict/precomputed/5?x=1', KEY], // unknown query parameter → 422
      ['/predict/precomputed/005', KEY], // non-canonical id: Fastify's validation decides
      ['/predict/precomputed/99999999999999999', KEY], // above MAX_SAFE_INTEGER → 422
      ['/predict/precomputed/-5', KEY],
      ['/predict/%70recomputed/5', KEY],
      ['/predict/precomputed/5', { ...KEY, origin: 'https://elsewhere.example' }], // CORS is Fastify's
      ['/predict/precomputed/5', KEY, 'HEAD'],
      ['/predict/precomputed/5', KEY, 'POST'],
    ];
    for (const [path, headers, method] of cases) {
      const servedBefore: number = state.served;
      const a = await get(hot.port, path, headers, method);
      const b = await get(plain.port, path, headers, method);
      assert.equal(
        state.served,
        servedBefore,
        `${method ?? 'GET'} ${path} must not be answered by the hot path`,
      );
      assert.equal(a.status, b.status, path);
      assert.deepEqual(JSON.parse(a.body || 'null'), JSON.parse(b.body || 'null'), path);
    }
  });

  test('counts each hot request in http_requests_total under the route template', async () => {
    const read = async () => {
      const m = (await metricsRegistry.getSingleMetric('http_requests_total')?.get())?.values.find(
        (v) =>
          v.labels.path === '/predict/precomputed/{match_id}' &&
          v.labels.status_code === '200' &&
          v.labels.method === 'GET',
      );
      return m?.value ?? 0;
    };
    const before = await read();
    for (let i = 1; i <= 5; i++) await get(hot.port, `/predict/precomputed/${i}`, KEY);
    assert.equal(await read(), before + 5);
    const text = (await get(hot.port, '/metrics')).body;
    assert.match(
      text,
      /http_requests_total\{method="GET",path="\/predict\/precomputed\/\{match_id\}",status_code="200"\}/,
    );
  });
});

describe('hot path: logging, missing file, CORS', () => {
  test('writes one request line per hot request with the route template and never the key', async () => {
    const lines: string[] = [];
    const s = await serve({ lines });
    try {
      const start = lines.length;
      await get(s.port, '/predict/precomputed/9', { ...KEY, 'x-request-id': 'req-hot-1' });
      const line = lines
        .slice(start)
        .flatMap((chunk) => chunk.split('\n'))
        .find((l) => l.includes('req-hot-1'));
      assert.ok(line, 'a request line');
      const rec = JSON.parse(line);
      assert.equal(rec.msg, 'request');
      assert.equal(rec.route, '/predict/precomputed/{match_id}');
      assert.equal(rec.status, 200);
      assert.equal(rec.request_id, 'req-hot-1');
      assert.ok(!lines.join('').includes(TEST_API_KEY), 'the key never reaches a log line');
    } finally {
      await s.app.close();
    }
  });

  test('without a predictions file the request reaches Fastify, which answers 503 with a detail', async () => {
    const s = await serve({ rows: 0 });
    try {
      const r = await get(s.port, '/predict/precomputed/1', KEY);
      assert.equal(r.status, 503);
      assert.ok(JSON.parse(r.body).detail);
      assert.equal(hotPathOf(s.app)?.served, 0);
    } finally {
      await s.app.close();
    }
  });

  test('is off when CORS origins are configured (the plugin must see every request)', async () => {
    const s = await serve({ env: { CORS_ALLOWED_ORIGINS: 'https://ui.example' } });
    try {
      assert.equal(hotPathOf(s.app), undefined);
      const r = await get(s.port, '/predict/precomputed/1', { ...KEY, origin: 'https://ui.example' });
      assert.equal(r.status, 200);
      assert.equal(r.headers['access-control-allow-origin'], 'https://ui.example');
    } finally {
      await s.app.close();
    }
  });

  test('stops answering once the app is closing, so Fastify can send Connection: close', async () => {
    const s = await serve();
    const state = hotPathOf(s.app);
    assert.ok(state);
    await get(s.port, '/predict/precomputed/1', KEY);
    assert.equal(state.served, 1);
    await s.app.close();
    assert.equal(
      state.handle({ method: 'GET', url: '/predict/precomputed/1', headers: KEY } as never, {} as never),
      false,
    );
  });
});

describe('hot path: request lines and metrics taken once per event-loop turn', () => {
  function capture(options: pino.LoggerOptions = {}): { log: pino.Logger; chunks: string[] } {
    const chunks: string[] = [];
    const log = pino(
      { level: 'info', ...options },
      new Writable({
        write(chunk, _enc, cb) {
          chunks.push(String(chunk));
          cb();
        },
      }),
    );
    return { log, chunks };
  }
  const fields = (id: string, ms: number) => ({
    reqId: id,
    request_id: id,
    method: 'GET',
    route: '/predict/precomputed/{match_id}',
    status: 200,
    ms,
  });

  test('the batched lines are what pino writes for the same fields, bindings included', async () => {
    const { log, chunks } = capture({ name: 'matchcast' });
    const child = log.child({ component: 'api' });
    const write = accessLineWriter(child, ROUTE);
    assert.ok(write, 'a default pino logger takes the batched writer');
    write(['req-a', 'req-b'], [0.125, 2], 2);
    child.info(fields('req-a', 0.125), 'request');
    child.info(fields('req-b', 2), 'request');
    await new Promise((r) => setImmediate(r));
    assert.equal(chunks.length, 3, 'one write for the whole batch, then one per pino line');
    const batched = chunks[0]!.split('\n').filter(Boolean);
    const fromPino = chunks.slice(1).map((c) => c.trim());
    assert.equal(batched.length, 2);
    const withoutTime = (l: string) => l.replace(/"time":\d+,/, '');
    assert.deepEqual(batched.map(withoutTime), fromPino.map(withoutTime));
  });

  test('a logger whose line would differ gets no batched writer', () => {
    assert.equal(accessLineWriter(capture({ mixin: () => ({ x: 1 }) }).log, ROUTE), undefined);
    assert.equal(accessLineWriter(capture({ messageKey: 'message' }).log, ROUTE), undefined);
    assert.equal(accessLineWriter(capture({ nestedKey: 'payload' }).log, ROUTE), undefined);
    assert.equal(
      accessLineWriter(capture({ timestamp: pino.stdTimeFunctions.isoTime }).log, ROUTE),
      undefined,
    );
    assert.equal(
      accessLineWriter(capture({ formatters: { level: (label) => ({ level: label }) } }).log, ROUTE),
      undefined,
    );
  });

  for (const kind of ['default', 'custom formatters'] as const) {
    test(`concurrent hot requests: one line and one metrics sample each (${kind} logger)`, async () => {
      const { log, chunks } = capture(
        kind === 'default'
          ? { redact: { paths: REDACT_PATHS, censor: '[redacted]' } }
          : { formatters: { level: (label) => ({ level: label }) } },
      );
      const { app, ctx } = await embeddedApp({}, { app: { logRequests: true }, log });
      try {
        await putPredictions(ctx.store, predictionRows({ n: 50 }));
        await ctx.views.start();
        await app.listen({ port: 0, host: '127.0.0.1' });
        const port = (app.server.address() as AddressInfo).port;
        const count = async () =>
          (await metricsRegistry.getSingleMetric('http_requests_total')?.get())?.values.find(
            (v) =>
              v.labels.path === '/predict/precomputed/{match_id}' &&
              v.labels.status_code === '200' &&
              v.labels.method === 'GET',
          )?.value ?? 0;
        const before = await count();
        const start = chunks.length;
        const ids = Array.from({ length: 40 }, (_, i) => `batch-${kind.replace(' ', '-')}-${i}`);
        const answers = await Promise.all(
          ids.map((id, i) =>
            get(port, `/predict/precomputed/${(i % 50) + 1}`, { ...KEY, 'x-request-id': id }),
          ),
        );
        assert.ok(answers.every((a) => a.status === 200));
        assert.equal(hotPathOf(app)?.served, 40);
        assert.equal(await count(), before + 40);
        const lines = chunks
          .slice(start)
          .flatMap((c) => c.split('\n'))
          .filter((l) => l.includes('"request"'))
          .map((l) => JSON.parse(l));
        assert.deepEqual(lines.map((l) => l.request_id).sort(), [...ids].sort());
        for (const l of lines) {
          assert.equal(l.route, '/predict/precomputed/{match_id}');
          assert.equal(l.status, 200);
          assert.equal(typeof l.ms, 'number');
          assert.equal(l.level, kind === 'default' ? 30 : 'info');
        }
      } finally {
        await app.close();
      }
    });
  }
});
