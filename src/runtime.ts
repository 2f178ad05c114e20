import type { AppContext } from './api/index.js';
import { createPredictionCache } from './cache/index.js';
import type { Config } from './config.js';
import { openDatabase } from './db/index.js';
import type { Logger } from './logger.js';
import { createTaskQueue } from './queue/index.js';
import { createRegistry } from './registry/index.js';
import { createServingViews } from './serving/index.js';
import { createObjectStore } from './storage/index.js';
import {
  createDefaultWorkerDeps,
  type RunningWorker,
  startWorker,
  WORKER_THREAD_ENTRY,
} from './worker/index.js';

/** What a process runs: the API alone (`serve`), or everything in one process (`start`). */
export type Role = 'api' | 'embedded';

/** The application context plus the means to release every adapter. */
export interface RuntimeContext extends AppContext {
  /** Embedded role with Redis only: starts an ml worker in this process (after the registry has models). */
  startEmbeddedWorker?: () => Promise<void>;
  close(): Promise<void>;
}

/**
 * The composition root: picks each adapter from configuration (ARCHITECTURE §1) — PostgreSQL or
 * PGlite, S3 or the folder store, BullMQ or the in-process queue, Redis or the memory cache.
 * In the `embedded` role with Redis configured, an ml worker also runs in this process, so that
 * `matchcast start` works against the distributed services too.
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  options: { role: Role },
): Promise<RuntimeContext> {
  const store = createObjectStore(config, log);
  await store.ensureBuckets?.();
  const db = await openDatabase(config);
  const queue = createTaskQueue(config, { log, threadEntry: WORKER_THREAD_ENTRY });
  const cache = createPredictionCache(config, log);
  const registry = createRegistry(store, config);
  const views = createServingViews(store, config, log);
  let worker: RunningWorker | undefined;

  const ctx: RuntimeContext = {
    config,
    log,
    db,
    store,
    queue,
    cache,
    registry,
    views,
    async close() {
      // Stop taking tasks first, then the producers, then storage underneath them.
      await worker?.close().catch((err: unknown) => log.warn({ err }, 'worker close failed'));
      await Promise.allSettled([views.close(), queue.close(), cache.close()]);
      await Promise.allSettled([db.close(), store.close()]);
    },
  };
  if (options.role === 'embedded' && config.redisUrl) {
    ctx.startEmbeddedWorker = async () => {
      worker = await startWorker(config, createDefaultWorkerDeps(config, log, store));
    };
  }
  return ctx;
}
