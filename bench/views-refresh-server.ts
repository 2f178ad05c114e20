/**
 * Server process of bench/views-refresh.ts (bundled per checkout; started with fork; talks over IPC).
 *   argv: <dataDir>
 * The real `buildApp` over the views of `dataDir`, whose database is served by the driver (a
 * `matchcast start`-style embedded host); the views poll the published-run pointer every
 * `VIEW_REFRESH_MS` (environment). Sends `{ port }` when the views are loaded; `'reset'` starts a
 * measuring window, `'stats'` answers the window's event-loop delay, view swaps, CPU and memory.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AppContext } from '../src/api/context.js';
import { buildApp } from '../src/api/index.js';
import { createPredictionCache } from '../src/cache/index.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { createTaskQueue } from '../src/queue/index.js';
import { createRegistry } from '../src/registry/index.js';
import { createServingViews } from '../src/serving/index.js';
import { createObjectStore } from '../src/storage/index.js';

const [dataDir] = process.argv.slice(2);
const send = (msg: unknown) => process.send?.(msg);

async function main(): Promise<void> {
  const config = parseConfig({
    ...process.env,
    DATA_DIR: dataDir,
    API_KEY: 'bench-key-0123456789abcdef',
    URL_SIGNING_SECRET: 'bench-secret-bench-secret-bench-secret',
  });
  const log = createLogger(config.logLevel);
  const store = createObjectStore(config);
  const db = await openDatabase(config);
  const views = createServingViews({ db, store }, config, log);
  await views.start();
  const ctx = {
    config,
    log,
    db,
    store,
    views,
    queue: await createTaskQueue(config, { log }),
    cache: await createPredictionCache(config, log),
    registry: createRegistry({ db, store }, config),
  } as unknown as AppContext;
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  // The analyst rows are computed once the app is ready (seconds of this thread's CPU on the real
  // data): wait for them, so that the window measures the views alone.
  await app.inject({
    method: 'GET',
    url: '/monitoring/backtest',
    headers: { 'x-api-key': config.apiKey ?? '' },
  });

  // The longest gap between ticks of a 5 ms timer: the longest event-loop block in the window.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let blockMs = 0;
  setInterval(() => {
    const now = performance.now();
    blockMs = Math.max(blockMs, now - last);
    last = now;
  }, 5);
  // A swap is visible as a new served run id.
  let served = views.servedRun()?.run_id;
  let swaps = 0;
  setInterval(() => {
    const now = views.servedRun()?.run_id;
    if (now !== served) swaps++;
    served = now;
  }, 10);
  let cpu = process.cpuUsage();
  delay.enable();

  const a = app.server.address();
  send({ port: typeof a === 'object' && a ? a.port : 0 });
  process.on('message', (msg) => {
    if (msg === 'reset') {
      delay.reset();
      blockMs = 0;
      swaps = 0;
      cpu = process.cpuUsage();
      send({ reset: true });
    }
    if (msg === 'stats') {
      const used = process.cpuUsage(cpu);
      send({
        stats: {
          blockMs,
          delayP99Ms: delay.percentile(99) / 1e6,
          delayMaxMs: delay.max / 1e6,
          swaps,
          // Process CPU (every thread), seconds.
          cpuS: (used.user + used.system) / 1e6,
          rssMb: Math.round(process.memoryUsage().rss / 1048576),
        },
      });
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
process.on('SIGTERM', () => process.exit(0));
// A driver that died leaves no server behind.
process.on('disconnect', () => process.exit(0));
