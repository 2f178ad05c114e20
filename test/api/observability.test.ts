// The shared per-request bookkeeping: every routed request — success, 401, 404, 422, a CORS preflight,
// HEAD, a streamed body, an error answer replacing a failed send — gets exactly one access line and one
// metrics sample; request.log carries the request id; the stdout logger loses no line at exit.
// (Requests refused before routing, a bad URL, are answered by the framework-errors handler and not
// counted.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { registerObservability } from '../../src/api/plugins/observability.js';
import { httpRequestDuration, httpRequestsTotal } from '../../src/metrics.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';

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

async function counterValue(method: string, path: string, status: number): Promise<number> {
  const { values } = await httpRequestsTotal.get();
  const v = values.find(
    (x) => x.labels.method === method && x.labels.path === path && x.labels.status_code === String(status),
  );
  return v?.value ?? 0;
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

test('every request gets one access line and one metrics sample, errors and preflights included', async () => {
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

test('a burst of concurrent requests is counted request by request', async () => {
  const before = await counterValue('GET', '/healthcheck/', 200);
  const countBefore = await durationCount();
  sink.lines.length = 0;
  const n = 40;
  await Promise.all(Array.from({ length: n }, () => app.inject({ url: '/healthcheck/' })));
  assert.equal((await counterValue('GET', '/healthcheck/', 200)) - before, n);
  assert.equal((await durationCount()) - countBefore, n);
  const lines = sink.lines.filter((l) => l.msg === 'request');
  assert.equal(lines.length, n);
  assert.equal(new Set(lines.map((l) => l.request_id)).size, n, 'one line per request id');
});

test('a send that fails in a later onSend hook is counted once, with the status answered', async () => {
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
  await f.close();
  const lines = out.lines.filter((l) => l.msg === 'request');
  assert.deepEqual(
    lines.map((l) => [l.route, l.method, l.status]),
    [
      ['/fails-on-send', 'GET', 500],
      ['/slow', 'HEAD', 200],
    ],
  );
  // The duration runs from the request's arrival to the answer: the handler's 60 ms are in it.
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
  // The streamed body's 40 ms are in its duration (counted when the response ends, not at the head).
  assert.ok((lines[0]!.ms as number) >= 35, `streamed took ${lines[0]!.ms} ms`);
});

test('a draining app closes a keep-alive connection once its in-flight response is sent', async () => {
  const shutdown = { draining: false };
  const { app: drained } = await embeddedApp({}, { app: { shutdown } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await drained.listen({ port: 0, host: '127.0.0.1' });
    const port = (drained.server.address() as { port: number }).port;
    /** GET on the agent's one socket; resolves with the status and whether the socket closed after it. */
    const get = (url: string, key?: string) =>
      new Promise<{ status: number; closed: Promise<boolean> }>((resolve, reject) => {
        const req = httpRequest(
          { port, host: '127.0.0.1', path: url, agent, headers: key ? { 'x-api-key': key } : {} },
          (res) => {
            const socket = res.socket;
            const closed = new Promise<boolean>((done) => {
              socket.once('close', () => done(true));
              setTimeout(() => done(false), 500).unref();
            });
            res.resume();
            res.once('end', () => resolve({ status: res.statusCode ?? 0, closed }));
          },
        );
        req.once('error', reject);
        req.end();
      });
    const open = await get('/healthcheck/');
    assert.equal(open.status, 200);
    assert.equal(await open.closed, false, 'keep-alive while serving');
    shutdown.draining = true;
    const last = await get('/predict/precomputed/1');
    assert.equal(last.status, 401);
    assert.equal(await last.closed, true, 'closed once answered while draining');
  } finally {
    agent.destroy();
    await drained.close();
  }
});

test('the stdout logger buffers its lines and loses none when the process exits', async () => {
  // 20,000 lines then process.exit() at once: whatever is still buffered is flushed synchronously.
  const script = [
    "import { createLogger } from './src/logger.ts';",
    "const log = createLogger('info');",
    "for (let i = 0; i < 20000; i++) log.info({ i, request_id: 'r' + i }, 'request');",
    'process.exit(0);',
  ].join('\n');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: path.resolve(import.meta.dirname, '..', '..'), maxBuffer: 64 * 1024 * 1024 },
  );
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { i: number });
  assert.equal(lines.length, 20000);
  assert.deepEqual(
    lines.map((l) => l.i),
    Array.from({ length: 20000 }, (_, i) => i),
  );
});

test('a lone line of a running process reaches stdout without waiting for more lines', async () => {
  const script = [
    "import { createLogger } from './src/logger.ts';",
    "createLogger('info').info({ lone: true }, 'one line');",
    'setTimeout(() => undefined, 60_000);',
  ].join('\n');
  const child = spawnGroup(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no line in 20 s: ${out}`)), 20_000);
      child.stdout?.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve(out);
        }
      });
    });
    assert.equal(JSON.parse(line).lone, true);
  } finally {
    signalGroup(child, 'SIGKILL');
  }
});
