// The shared per-request bookkeeping after batching: every routed request — success, 401, 404, 422, a
// CORS preflight, HEAD, a streamed body, an error answer replacing a failed send — gets exactly one
// access line and one metrics sample, request.log is built only when a request logs, and the stdout
// destination writes one turn's lines in one write. (Requests refused before routing, a bad URL, are
// answered by the framework-errors handler and not counted.)
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import pino from 'pino';
import { loggerAccessLog } from '../../src/api/plugins/access-log.js';
import { RequestLedger, registerObservability } from '../../src/api/plugins/observability.js';
import { LazyRequestLogger, lazyChildLogger } from '../../src/api/plugins/request-logger.js';
import { TurnBatchedDestination } from '../../src/logger.js';
import { httpRequestDuration, httpRequestsTotal } from '../../src/metrics.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

const ORIGIN = 'https://ui.example.com';

/** A pino destination that keeps its lines. */
function memoryDestination(): { write(s: string): void; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    write(s: string) {
      for (const l of s.split('\n')) if (l) lines.push(JSON.parse(l));
    },
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function counterValue(method: string, path: string, status: number): Promise<number> {
  const { values } = await httpRequestsTotal.get();
  const v = values.find(
    (x) => x.labels.method === method && x.labels.path === path && x.labels.status_code === String(status),
  );
  return v?.value ?? 0;
}

async function durationSum(): Promise<number> {
  const { values } = await httpRequestDuration.get();
  return values.find((x) => x.metricName === 'http_request_duration_seconds_sum')?.value ?? 0;
}

async function durationCount(): Promise<number> {
  const { values } = await httpRequestDuration.get();
  return values.find((x) => x.metricName === 'http_request_duration_seconds_count')?.value ?? 0;
}

let app: FastifyInstance;
const sink = memoryDestination();
before(async () => {
  const log = pino({ level: 'info' }, sink);
  ({ app } = await embeddedApp({ CORS_ALLOWED_ORIGINS: ORIGIN }, { log, app: { logRequests: true } }));
});
after(async () => app.close());

const CASES = [
  { method: 'GET', url: '/healthcheck/', path: '/healthcheck/', status: 200 },
  { method: 'GET', url: '/predict/predictions/', path: '/predict/predictions/', status: 401 },
  { method: 'GET', url: '/nope', path: 'unmatched', status: 404 },
  {
    method: 'GET',
    url: '/predict/precomputed/abc',
    key: true,
    path: '/predict/precomputed/{match_id}',
    status: 422,
  },
  {
    method: 'OPTIONS',
    url: '/predict/precomputed/1',
    preflight: true,
    // @fastify/cors answers preflights from its `OPTIONS *` route
    path: '{path}',
    status: 204,
  },
] as const;

test('every request of a turn gets one access line and one metrics sample, errors and preflights included', async () => {
  const before = await Promise.all(CASES.map((c) => counterValue(c.method, c.path, c.status)));
  const countBefore = await durationCount();
  sink.lines.length = 0;
  const ids = CASES.map((_, i) => `obs-test-${i}`);
  // Sent together, so that the answers land in the same batches.
  const responses = await Promise.all(
    CASES.map((c, i) =>
      app.inject({
        method: c.method,
        url: c.url,
        headers: {
          'x-request-id': ids[i]!,
          ...('key' in c ? { 'x-api-key': TEST_API_KEY } : {}),
          ...('preflight' in c
            ? { origin: ORIGIN, 'access-control-request-method': 'GET' }
            : { origin: ORIGIN }),
        },
      }),
    ),
  );
  for (const [i, res] of responses.entries()) assert.equal(res.statusCode, CASES[i]!.status, CASES[i]!.url);
  await nextTurn();

  for (const [i, c] of CASES.entries()) {
    const lines = sink.lines.filter((l) => l.msg === 'request' && l.request_id === ids[i]);
    assert.equal(lines.length, 1, `one access line for ${c.method} ${c.url}`);
    assert.equal(lines[0]!.method, c.method);
    assert.equal(lines[0]!.route, c.path);
    assert.equal(lines[0]!.status, c.status);
    assert.equal(typeof lines[0]!.ms, 'number');
    assert.equal(lines[0]!.level, 30);
  }
  const after = await Promise.all(CASES.map((c) => counterValue(c.method, c.path, c.status)));
  for (const [i, c] of CASES.entries()) {
    assert.equal(after[i]! - before[i]!, 1, `${c.method} ${c.path} ${c.status}`);
  }
  assert.equal((await durationCount()) - countBefore, CASES.length);
});

test('a burst of requests in one turn is counted request by request', async () => {
  const before = await counterValue('GET', '/healthcheck/', 200);
  const countBefore = await durationCount();
  sink.lines.length = 0;
  const n = 40;
  await Promise.all(Array.from({ length: n }, () => app.inject({ url: '/healthcheck/' })));
  await nextTurn();
  assert.equal((await counterValue('GET', '/healthcheck/', 200)) - before, n);
  assert.equal((await durationCount()) - countBefore, n);
  const lines = sink.lines.filter((l) => l.msg === 'request');
  assert.equal(lines.length, n);
  assert.equal(new Set(lines.map((l) => l.request_id)).size, n, 'one line per request id');
});

test('the ledger counts interleaved runs of (method, route, status) request by request', async () => {
  const sequence: [string, string, number][] = [
    ['GET', '/ledger/:id', 200],
    ['GET', '/ledger/:id', 200],
    ['GET', '/ledger/:id', 404],
    ['GET', '/ledger/:id', 200],
    ['POST', '/ledger/:id', 200],
    ['POST', '/ledger/:id', 200],
    ['GET', '/ledger/:id', 200],
  ];
  const expected = [
    ['GET', 200, 4],
    ['GET', 404, 1],
    ['POST', 200, 2],
  ] as const;
  const before = await Promise.all(expected.map(([m, st]) => counterValue(m, '/ledger/{id}', st)));
  const countBefore = await durationCount();
  const sumBefore = await durationSum();
  const out = memoryDestination();
  const ledger = new RequestLedger(loggerAccessLog(pino({ level: 'info' }, out)));
  // Durations 1..7 ms: every one is observed, whichever run it falls in.
  for (const [i, [method, route, status]] of sequence.entries())
    ledger.add(`l-${i}`, method, route, status, i + 1);
  ledger.flush();
  const after = await Promise.all(expected.map(([m, st]) => counterValue(m, '/ledger/{id}', st)));
  for (const [i, [m, st, n]] of expected.entries()) assert.equal(after[i]! - before[i]!, n, `${m} ${st}`);
  assert.equal((await durationCount()) - countBefore, sequence.length);
  assert.ok(Math.abs((await durationSum()) - sumBefore - 0.028) < 1e-9, 'the sum of the 7 durations (s)');
  assert.deepEqual(
    out.lines.map((l) => [l.request_id, l.method, l.route, l.status, l.ms]),
    sequence.map(([method, , status], i) => [`l-${i}`, method, '/ledger/{id}', status, i + 1]),
  );
});

test('request.log is built only when a request logs, with the request id bound as Fastify binds it', async () => {
  const lazySink = memoryDestination();
  const eagerSink = memoryDestination();
  const build = (sinkOf: ReturnType<typeof memoryDestination>, lazy: boolean) => {
    const log = pino({ level: 'info' }, sinkOf);
    // As buildApp does: no logger of Fastify's own, request.log built lazily from ours.
    const f = Fastify({
      ...(lazy ? { logger: false, childLoggerFactory: lazyChildLogger(log) } : { loggerInstance: log }),
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: () => 'fixed-id',
    }) as unknown as FastifyInstance;
    f.get('/quiet', async () => ({ ok: true }));
    f.get('/talks', async (request) => {
      request.log.warn({ detail: 1 }, 'talking');
      return { ok: true };
    });
    return f;
  };
  const lazy = build(lazySink, true);
  const eager = build(eagerSink, false);
  for (const f of [lazy, eager]) {
    assert.equal((await f.inject({ url: '/quiet' })).statusCode, 200);
    assert.equal((await f.inject({ url: '/talks' })).statusCode, 200);
  }
  await Promise.all([lazy.close(), eager.close()]);
  const strip = (l: Record<string, unknown>) => ({ ...l, time: 0 });
  assert.equal(lazySink.lines.length, 1);
  assert.deepEqual(lazySink.lines.map(strip), eagerSink.lines.map(strip));
  assert.equal(lazySink.lines[0]!.reqId, 'fixed-id');
});

test('LazyRequestLogger calls the parent only on first use, then reuses the child', () => {
  let children = 0;
  const calls: unknown[][] = [];
  const child = {
    level: 'info',
    info: (...args: unknown[]) => calls.push(args),
  } as unknown as FastifyBaseLogger;
  const parent = {
    level: 'info',
    child: () => {
      children++;
      return child;
    },
  } as unknown as FastifyBaseLogger;
  const lazy = new LazyRequestLogger(parent, { reqId: 'r1' }, {});
  assert.equal(lazy.level, 'info');
  assert.equal(children, 0, 'reading the level builds nothing');
  lazy.info({ a: 1 }, 'one');
  lazy.info('two');
  assert.equal(children, 1);
  assert.deepEqual(calls, [[{ a: 1 }, 'one'], ['two']]);
});

test('TurnBatchedDestination writes the lines of one turn in one write, in order, and flushes on demand', async () => {
  const writes: string[] = [];
  const dest = new TurnBatchedDestination({ write: (s: string) => writes.push(s) });
  dest.write('a\n');
  dest.write('b\n');
  dest.write('c\n');
  assert.deepEqual(writes, [], 'nothing written inside the turn');
  await nextTurn();
  assert.deepEqual(writes, ['a\nb\nc\n']);
  dest.write('d\n');
  dest.flushSync();
  assert.deepEqual(writes, ['a\nb\nc\n', 'd\n']);
  await nextTurn();
  assert.equal(writes.length, 2, 'a flushed batch is not written twice');
});

test('a pino logger over TurnBatchedDestination writes the same lines as over a plain destination', async () => {
  const direct = memoryDestination();
  const batched = memoryDestination();
  const opts = { level: 'info', base: { pid: 1 } };
  const a = pino(opts, direct);
  const b = pino(opts, new TurnBatchedDestination(batched));
  for (const log of [a, b]) {
    log.info({ request_id: 'x', status: 200 }, 'request');
    log.warn('second');
    log.debug('not written');
  }
  await nextTurn();
  const strip = (l: Record<string, unknown>) => ({ ...l, time: 0 });
  assert.equal(batched.lines.length, 2);
  assert.deepEqual(batched.lines.map(strip), direct.lines.map(strip));
});

test('onSend accounting: a send that fails in a later onSend hook is counted once, with the status answered', async () => {
  const out = memoryDestination();
  const log = pino({ level: 'info' }, out);
  const f = Fastify({ logger: false, genReqId: () => 'once' }) as unknown as FastifyInstance;
  registerObservability(f, { accessLog: log });
  f.get(
    '/fails-on-send',
    { onSend: (_req, _reply, _payload, done) => done(new Error('late failure')) },
    async () => ({
      ok: true,
    }),
  );
  f.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 60));
    return { ok: true };
  });
  const countBefore = await durationCount();
  const failed = await f.inject({ url: '/fails-on-send' });
  assert.equal(failed.statusCode, 500);
  const head = await f.inject({ method: 'HEAD', url: '/slow' });
  assert.equal(head.statusCode, 200);
  await nextTurn();
  await f.close();
  const lines = out.lines.filter((l) => l.msg === 'request');
  assert.deepEqual(
    lines.map((l) => [l.route, l.method, l.status]),
    [
      ['/fails-on-send', 'GET', 500],
      ['/slow', 'HEAD', 200],
    ],
  );
  // The duration runs from the shared onRequest hook to the answer: the handler's 60 ms are in it.
  assert.ok((lines[1]!.ms as number) >= 55, `HEAD /slow took ${lines[1]!.ms} ms`);
  assert.equal((await durationCount()) - countBefore, 2);
});

test('a streamed body is counted once when it closes: with its final status when it fails before its head', async () => {
  const out = memoryDestination();
  const f = Fastify({ logger: false }) as unknown as FastifyInstance;
  registerObservability(f, { accessLog: pino({ level: 'info' }, out) });
  f.get('/streams', async (_request, reply) => {
    const body = new PassThrough();
    setTimeout(() => body.end('{"ok":true}'), 40);
    return reply.type('application/json').send(body);
  });
  f.get('/fails-late', async (_request, reply) => {
    const body = new Readable({ read() {} });
    setTimeout(() => body.destroy(new Error('disk went away')), 30);
    return reply.type('application/json').send(body);
  });
  await f.listen({ port: 0, host: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${(f.server.address() as { port: number }).port}`;
    const ok = await fetch(`${base}/streams`);
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), '{"ok":true}');
    const failed = await fetch(`${base}/fails-late`);
    assert.equal(failed.status, 500);
    await failed.text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await nextTurn();
  } finally {
    await f.close();
  }
  const lines = out.lines.filter((l) => l.msg === 'request');
  assert.deepEqual(
    lines.map((l) => [l.route, l.status]),
    [
      ['/streams', 200],
      ['/fails-late', 500],
    ],
  );
  // The streamed body's 40 ms are in its duration (counted at close, not at the head).
  assert.ok((lines[0]!.ms as number) >= 35, `streamed took ${lines[0]!.ms} ms`);
});

test('a draining app answers every response with Connection: close', async () => {
  const shutdown = { draining: false };
  const { app: drained } = await embeddedApp({}, { app: { shutdown } });
  try {
    assert.notEqual((await drained.inject({ url: '/healthcheck/' })).headers.connection, 'close');
    shutdown.draining = true;
    assert.equal((await drained.inject({ url: '/healthcheck/' })).headers.connection, 'close');
    const unauthorised = await drained.inject({ url: '/predict/precomputed/1' });
    assert.equal(unauthorised.statusCode, 401);
    assert.equal(unauthorised.headers.connection, 'close');
  } finally {
    await drained.close();
  }
});
