/**
 * The API process of bench/live.ts: the real app with the live routes over BullMQ on Redis, the cache
 * given by CACHE_URL (a closed port = cache bypassed). Prints `{port}` on IPC once listening.
 *   node --import tsx bench/live-server.ts   (env: DATA_DIR, DATABASE_URL, REDIS_URL, QUEUE_NAME, CACHE_URL, API_KEY)
 */
import { buildApp } from '../src/api/app.js';
import type { AppContext } from '../src/api/context.js';
import { liveRoutes } from '../src/api/routes/live.js';
import { tasksRoutes } from '../src/api/routes/tasks.js';
import { createPredictionCache } from '../src/cache/index.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { createTaskQueue } from '../src/queue/index.js';
import { createRegistry } from '../src/registry/index.js';
import { createServingViews } from '../src/serving/index.js';
import { createObjectStore } from '../src/storage/index.js';

const config = parseConfig(process.env);
const log = createLogger('warn', 'bench-api');
const store = createObjectStore(config, log);
const queue = await createTaskQueue(config, { log });
const db = await openDatabase(config);
const ctx: AppContext = {
  config,
  log,
  db,
  store,
  queue,
  cache: await createPredictionCache(config, log),
  registry: createRegistry({ db, store }, config),
  views: createServingViews({ db, store }, config, log),
};
const app = await buildApp(ctx, { logRequests: false });
if (!app.hasRoute({ method: 'GET', url: '/predict/:match_id' })) await liveRoutes(app, ctx);
if (!app.hasRoute({ method: 'GET', url: '/monitoring/task_status/:task_id' })) await tasksRoutes(app, ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
process.once('SIGTERM', async () => {
  await app.close();
  await queue.close();
  process.exit(0);
});
process.on('message', async (msg) => {
  if (msg === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ cpuMs: (u.user + u.system) / 1000 });
  }
  if (msg === 'rss') process.send?.({ rssMb: Math.round(process.memoryUsage().rss / 1048576) });
  if (msg === 'stop') {
    await app.close();
    await queue.close();
    process.exit(0);
  }
});
