/**
 * Server process of bench/precomputed.ts (started with fork; talks over IPC).
 *   argv: <mode> <dataDir>
 *   mode `bare`:      node:http answering `/predict/precomputed/{id}` with the app's body for that id
 *                     (the same loaded views) and the app's headers (content type, the API security
 *                     headers, a fresh X-Request-Id): the fair limit of any server sending that answer
 *   mode `fastify`:   Fastify with only the precomputed routes (no shared hooks): the route's own cost
 *   mode `app`:       the real `buildApp` (security headers, auth, request ids, metrics, access line at
 *                     info), with the heap policy of `matchcast serve` (`useLeanHeap`)
 *   mode `app-quiet`: `buildApp` with `logRequests: false` (no access line)
 *   `app-nometrics`, `app-nohash`, `app-quiet-nometrics-nohash`, …: `buildApp` with the request metrics
 *                     and/or the key's SHA-256 replaced by no-ops (what each part costs)
 *   mode `app-cors`:  `buildApp` with `CORS_ALLOWED_ORIGINS` set (the CORS plugin's hook on every request)
 *   mode `app-transport`: `buildApp` with its log lines written through a pino transport (`pino/file`
 *                     on a thread of pino's) instead of the service's asynchronous stdout destination
 * Sends `{ port }` when listening; answers `'mem'` with its memory figures, `'cpu'` with its CPU time
 * and `'reload'` by loading a new predictions file (to see the peak while two copies coexist).
 */
import crypto, { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { AppContext } from '../src/api/context.js';
import { buildApp } from '../src/api/index.js';
import { apiSecurityHeaders } from '../src/api/plugins/security-headers.js';
import { precomputedRoutes } from '../src/api/routes/precomputed.js';
import { createPredictionCache } from '../src/cache/index.js';
import { useLeanHeap } from '../src/cli/batch-process.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { isMatchcastError } from '../src/domain/index.js';
import { createLogger, REDACT_PATHS } from '../src/logger.js';
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
  // The published-run pointer lives in the (embedded) database; requests never query it. The
  // servers of a run share one embedded database, one process at a time: each closes it once its
  // views are loaded (the views' next poll is an hour away).
  const db = await openShared(config);
  const views: Views = createServingViews({ db, store }, config, log);
  await views.start();
  await db.close();
  return { config, log, store, db, views };
}

/** Opens the embedded database, waiting while another server of the run holds it. */
async function openShared(config: ReturnType<typeof parseConfig>) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openDatabase(config);
    } catch (err) {
      if (attempt >= 600 || !isMatchcastError(err, 'MC_ERR_DATABASE_UNAVAILABLE')) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const PREFIX = '/predict/precomputed/';

async function main(): Promise<void> {
  if (mode === 'bare') {
    const { views } = await loadViews();
    // The app's headers as one flat [name, value, …] list built once; only the length and the id change.
    const base: string[] = Object.entries({
      'content-type': 'application/json; charset=utf-8',
      ...apiSecurityHeaders(),
    }).flat();
    const headers: (string | number)[] = [...base, 'content-length', 0, 'x-request-id', ''];
    const server = createServer((req, res) => {
      const url = req.url ?? '';
      const json = url.startsWith(PREFIX)
        ? views.precomputedJson(Number(url.slice(PREFIX.length)))
        : undefined;
      headers[headers.length - 1] = randomUUID();
      if (json === undefined) {
        headers[headers.length - 3] = 2;
        res.writeHead(404, headers as string[]);
        res.end('{}');
        return;
      }
      headers[headers.length - 3] = json.length;
      res.writeHead(200, headers as string[]);
      res.end(json);
    });
    serveBare(server);
    return;
  }

  // Every server but the bare one runs with the heap policy of `matchcast serve` and `start`.
  useLeanHeap();
  const { config, log, store, db, views } = await loadViews(
    mode === 'app-cors' ? { CORS_ALLOWED_ORIGINS: 'https://ui.example.com' } : {},
  );

  let app: FastifyInstance;
  if (mode === 'fastify') {
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
      log:
        mode === 'app-transport'
          ? pino(
              {
                name: 'matchcast',
                level: config.logLevel,
                redact: { paths: REDACT_PATHS, censor: '[redacted]' },
              },
              pino.transport({ target: 'pino/file', options: { destination: 1 } }),
            )
          : log,
      db,
      store,
      views,
      queue: await createTaskQueue(config, { log }),
      cache: await createPredictionCache(config, log),
      registry: createRegistry({ db, store }, config),
    } as unknown as AppContext;
    // Ablation: `-nometrics` / `-nohash` in the mode make that part of every request a no-op.
    if (mode.includes('-nometrics')) {
      httpRequestsTotal.inc = () => undefined;
      httpRequestDuration.observe = () => undefined;
    }
    if (mode.includes('-nohash')) {
      const digest = Buffer.alloc(32);
      (crypto as { hash: unknown }).hash = () => digest;
    }
    app = await buildApp(ctx, { logRequests: !mode.includes('-quiet') });
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
      // The database was closed after the first load: a second set of views loads the new run
      // beside the first, as a refresh holds both copies until its swap.
      const open = await openShared(config);
      await putPredictions({ db: open, store }, predictionRows({ n, runId: 'run-reload', seed: 7 }));
      const fresh = createServingViews({ db: open, store }, config, log);
      await fresh.start();
      await open.close();
      send({
        reloaded: fresh.status().predictions.etag,
        mem: memory(),
        old: views.status().predictions.rows,
      });
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
process.on('SIGTERM', () => process.exit(0)); // a clean exit writes --cpu-prof profiles
// A driver that died (killed, crashed) leaves no server behind.
process.on('disconnect', () => process.exit(0));
