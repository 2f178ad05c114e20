/**
 * Server process of bench/precomputed.ts (started with fork; talks over IPC).
 *   argv: <mode> <dataDir>
 *   mode `bare`:        node:http, one constant body (the baseline)
 *   mode `bare-headers`: the bare server plus the app's security headers and an X-Request-Id
 *   mode `fastify-hello`: Fastify, one route answering the bare server's constant body (no schema): the framework's floor
 *   mode `fastify`:     Fastify with only the precomputed routes (no shared hooks): the route's own cost
 *   mode `app`:         the real `buildApp` (helmet, CORS, auth, request ids, metrics, request log at info)
 *   mode `app-quiet`:   `buildApp` with `logRequests: false`
 *   mode `app-inline-log`: `buildApp` with the access lines written on the event loop (no access-log thread)
 *   mode `app-cors`:    `buildApp` with `CORS_ALLOWED_ORIGINS` set (the CORS plugin's hook on every request)
 *   mode `compose:<a+b+…>`: Fastify + precomputed routes + a subset of the shared hooks, to price
 *                          each one (errors, auth, obs, log, lazylog, sechdr, strict, helmet, cors, reqid;
 *                          apihdr: only the API security headers and X-Request-Id, one onRequest hook)
 * Sends `{ port }` when listening; answers `'mem'` with its memory figures and `'reload'` by
 * loading a new predictions file (to see the peak while two copies coexist).
 */
import { createHash, hash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import helmetMiddleware from 'helmet';
import type { AppContext } from '../src/api/context.js';
import { buildApp } from '../src/api/index.js';
import { isProtectedPath, registerAuth } from '../src/api/plugins/auth.js';
import { registerErrorHandling } from '../src/api/plugins/errors.js';
import { registerObservability, requestIdFrom, routeTemplate } from '../src/api/plugins/observability.js';
import { lazyChildLogger } from '../src/api/plugins/request-logger.js';
import { apiSecurityHeaders } from '../src/api/plugins/security-headers.js';
import { registerStrictValidation } from '../src/api/plugins/validation.js';
import { precomputedRoutes } from '../src/api/routes/precomputed.js';
import { createPredictionCache } from '../src/cache/index.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { MatchcastError } from '../src/domain/index.js';
import { createLogger } from '../src/logger.js';
import { httpRequestDuration, httpRequestsTotal } from '../src/metrics.js';
import { createTaskQueue } from '../src/queue/index.js';
import { createRegistry } from '../src/registry/index.js';
import { createServingViews, type Views } from '../src/serving/index.js';
import { createObjectStore } from '../src/storage/index.js';
import { predictionRows, putPredictions } from './precomputed-fixtures.js';

const [mode, dataDir] = process.argv.slice(2);
const send = (msg: unknown) => process.send?.(msg);

function cpuMicros(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

function memory() {
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;
  return {
    rssMb: mb(m.rss),
    heapUsedMb: mb(m.heapUsed),
    externalMb: mb(m.external),
    maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
  };
}

/** The settings, logger, store and loaded views every non-bare server uses. */
async function loadViews(env: Record<string, string> = {}) {
  const config = parseConfig({
    ...env,
    DATA_DIR: dataDir,
    API_KEY: 'bench-key-0123456789abcdef',
    LOG_LEVEL: 'info',
    VIEW_REFRESH_MS: '3600000',
    URL_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret',
  });
  const log = createLogger(config.logLevel);
  const store = createObjectStore(config);
  // The published-run pointer lives in the (embedded) database; requests never query it.
  const db = await openDatabase(config);
  const views: Views = createServingViews({ db, store }, config, log);
  await views.start();
  return { config, log, store, db, views };
}

async function main(): Promise<void> {
  const body = Buffer.from(
    '{"match_id":12345,"proba_home":0.45,"proba_draw":0.27,"proba_away":0.28,"predicted_class":0,"predicted_label":"home_win","is_future":false,"start_time_utc":"2025-10-04T14:00:00.000Z","home_team_name":"Home 1-2 & Co","away_team_name":"Away 1-3/FC","model_run_id":"run-0001","model_stage":"champion","predictions_computed_at":"2026-01-01T00:00:00.000Z"}',
  );
  if (mode === 'bare') {
    const server = createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
    });
    serveBare(server);
    return;
  }
  if (mode === 'bare-headers') {
    // The bare server plus the headers every app response carries (security set, a request id): their own
    // cost. One flat [name, value, …] list built once: spreading them into a new object per request cost
    // more (~8 µs) than sending them (docs/benchmarks.md).
    const headers: (string | number)[] = Object.entries({
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      ...apiSecurityHeaders(),
      'x-request-id': '',
    }).flat();
    const id = headers.length - 1;
    const server = createServer((_req, res) => {
      headers[id] = randomUUID();
      res.writeHead(200, headers as string[]);
      res.end(body);
    });
    serveBare(server);
    return;
  }
  if (mode === 'fastify-hello') {
    // The framework's own floor: the bare server's constant body through one Fastify route, no schema.
    const hello = Fastify({ logger: false });
    hello.get('/predict/precomputed/:match_id', (_request, reply) => {
      reply.header('content-type', 'application/json; charset=utf-8').send(body);
    });
    await hello.ready();
    serveBare(hello.server);
    return;
  }

  const { config, log, store, db, views } = await loadViews(
    mode === 'app-cors' ? { CORS_ALLOWED_ORIGINS: 'https://ui.example.com' } : {},
  );

  let app: FastifyInstance;
  if (mode.startsWith('compose:')) {
    app = await composeApp(new Set(mode.slice('compose:'.length).split('+')), { config, log, store, views });
  } else if (mode === 'fastify') {
    app = Fastify({
      logger: false,
      routerOptions: { ignoreTrailingSlash: true },
      ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true } },
    }) as unknown as FastifyInstance;
    await precomputedRoutes(app, { config, log, store, views } as unknown as AppContext);
  } else {
    // The database is never called on the precomputed path (the views poll the pointer in the
    // background); the queue, cache and registry are the in-process adapters `matchcast start` uses.
    const ctx = {
      config,
      log,
      db,
      store,
      views,
      queue: createTaskQueue(config, { log }),
      cache: createPredictionCache(config, log),
      registry: createRegistry({ db, store }, config),
    } as unknown as AppContext;
    app = await buildApp(ctx, {
      logRequests: mode !== 'app-quiet',
      accessLogThread: mode !== 'app-inline-log',
    });
    if (!app.hasRoute({ method: 'GET', url: '/predict/precomputed/:match_id' }))
      await precomputedRoutes(app, ctx);
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  send({ port: typeof a === 'object' && a ? a.port : 0, rows: views.status().predictions.rows });
  process.on('message', async (msg) => {
    if (msg === 'mem') send({ mem: memory() });
    if (msg === 'cpu') send({ cpu: cpuMicros() });
    if (msg === 'cpuu') send({ cpuu: process.cpuUsage() });
    if (msg === 'reload') {
      const n = views.status().predictions.rows;
      await putPredictions({ db, store }, predictionRows({ n, runId: 'run-reload', seed: 7 }));
      await views.refresh();
      send({ reloaded: views.status().predictions.etag, mem: memory() });
    }
  });
}

/** Listens on a free port, reports it, and answers the driver's `mem` and `cpu` questions. */
function serveBare(server: ReturnType<typeof createServer>): void {
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    send({ port: typeof a === 'object' && a ? a.port : 0 });
  });
  process.on('message', (msg) => {
    if (msg === 'mem') send({ mem: memory() });
    if (msg === 'cpu') send({ cpu: cpuMicros() });
    if (msg === 'cpuu') send({ cpuu: process.cpuUsage() });
  });
}

/**
 * Proposed cheaper equivalents of the shared hooks (what docs/benchmarks.md recommends to the lead).
 * Same behaviour: constant-time key check that also holds for keys of another length (both sides
 * are SHA-256 digests; the expected one is computed once), 401 before any work.
 */
function registerLeanAuth(app: FastifyInstance, apiKey: string): void {
  const expected = createHash('sha256').update(apiKey).digest();
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isProtectedPath(request.url, false)) return done();
    const header = request.headers['x-api-key'];
    if (
      typeof header !== 'string' ||
      !timingSafeEqual(hash('sha256', header, 'buffer') as Buffer, expected)
    ) {
      return done(new MatchcastError('MC_ERR_UNAUTHORIZED'));
    }
    done();
  });
}

/** Helmet's headers computed once (same options as buildApp) and set with one call per response. */
function registerStaticHeaders(app: FastifyInstance): void {
  const headers: Record<string, string> = {};
  const fakeRes = {
    setHeader: (k: string, v: string) => {
      headers[k.toLowerCase()] = String(v);
    },
    removeHeader: (k: string) => {
      delete headers[k.toLowerCase()];
    },
  };
  helmetMiddleware({ crossOriginResourcePolicy: { policy: 'same-origin' } })(
    {} as never,
    fakeRes as never,
    () => undefined,
  );
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}

/**
 * Only what every API response must carry: the six API security headers and an X-Request-Id, set in
 * one onRequest hook (no metrics, no access line): the floor of the shared hooks.
 */
function registerApiHeaders(app: FastifyInstance): void {
  const headers = apiSecurityHeaders();
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    done();
  });
}

/** Metrics without the per-request info log line; labelled children cached per (method, route, status). */
function registerLeanObservability(app: FastifyInstance): void {
  const children = new Map<string, { inc(): void }>();
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const path = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const key = `${request.method} ${path} ${status}`;
    let child = children.get(key);
    if (!child) {
      child = httpRequestsTotal.labels(request.method, routeTemplate(path), String(status));
      children.set(key, child);
    }
    child.inc();
    httpRequestDuration.observe(reply.elapsedTime / 1000);
    if (status >= 500) request.log.warn({ request_id: request.id, route: path, status }, 'request');
    done();
  });
}

/** The pieces of `buildApp`, added one by one, with the same Fastify options. */
async function composeApp(
  parts: Set<string>,
  base: Pick<AppContext, 'config' | 'log' | 'store' | 'views'>,
): Promise<FastifyInstance> {
  const quiet = base.log.child({}, { level: 'warn' });
  const app = Fastify({
    logger: false, // as buildApp: request.log only through the lazy factory
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: parts.has('lazylog')
      ? lazyChildLogger(parts.has('log') ? base.log : quiet)
      : undefined,
    genReqId: parts.has('reqid')
      ? (req) => requestIdFrom(req.headers['x-request-id'], randomUUID)
      : undefined,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true },
    },
  }) as unknown as FastifyInstance;
  if (parts.has('obs'))
    registerObservability(app, {
      accessLog: parts.has('log') ? base.log : undefined,
      staticHeaders: parts.has('sechdr') ? apiSecurityHeaders() : undefined,
    });
  if (parts.has('strict')) registerStrictValidation(app);
  if (parts.has('errors')) registerErrorHandling(app);
  if (parts.has('cors')) await app.register(cors, { origin: false });
  if (parts.has('auth')) registerAuth(app, { apiKey: base.config.apiKey });
  if (parts.has('authfast')) registerLeanAuth(app, base.config.apiKey ?? '');
  if (parts.has('headers')) registerStaticHeaders(app);
  if (parts.has('apihdr')) registerApiHeaders(app);
  if (parts.has('obslean')) registerLeanObservability(app);
  await precomputedRoutes(app, base as unknown as AppContext);
  return app;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
process.on('SIGTERM', () => process.exit(0)); // a clean exit writes --cpu-prof profiles
// A driver that died (killed, crashed) leaves no server behind.
process.on('disconnect', () => process.exit(0));
