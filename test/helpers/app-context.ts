// A real embedded application context for API tests: PGlite in memory, folder store and in-process
// queue in a temp dir, memory cache. No stand-ins: every port is the adapter `matchcast start` uses.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type BuildAppOptions, buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { createPredictionCache } from '../../src/cache/index.js';
import { type Config, parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createTaskQueue } from '../../src/queue/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { createServingViews } from '../../src/serving/index.js';
import { createObjectStore } from '../../src/storage/index.js';

export const TEST_API_KEY = 'test-api-key-0123456789abcdef';

/** Builds the app over embedded adapters; `app.close()` releases everything. */
export async function embeddedApp(
  env: Record<string, string> = {},
  options: { app?: BuildAppOptions; log?: Logger } = {},
): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-app-'));
  const config: Config = parseConfig({
    API_KEY: TEST_API_KEY,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const log = options.log ?? createLogger('silent');
  const store = createObjectStore(config, log);
  const db = await openDatabase(config, { memory: true });
  const ctx: AppContext = {
    config,
    log,
    db,
    store,
    queue: await createTaskQueue(config, { log }),
    cache: await createPredictionCache(config, log),
    registry: createRegistry({ db, store }, config),
    views: createServingViews({ db, store }, config, log),
  };
  const app = await buildApp(ctx, { logRequests: false, ...options.app });
  app.addHook('onClose', async () => {
    await Promise.allSettled([ctx.queue.close(), ctx.cache.close(), ctx.views.close()]);
    await Promise.allSettled([db.close(), store.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });
  await app.ready();
  return { app, ctx };
}
