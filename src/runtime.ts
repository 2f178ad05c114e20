import path from 'node:path';
import type { AppContext } from './api/index.js';
import { createPredictionCache } from './cache/index.js';
import type { Config } from './config.js';
import {
  type Database,
  type EmbeddedHost,
  embeddedDbDir,
  embeddedServerAnswers,
  hostEmbeddedDatabase,
  openDatabase,
  openDatabaseDeferred,
} from './db/index.js';
import { isMatchcastError } from './domain/index.js';
import type { Logger } from './logger.js';
import { importLegacyMetadata } from './pipeline/index.js';
import { createTaskQueue } from './queue/index.js';
import { createRegistry } from './registry/index.js';
import { createServingViews } from './serving/index.js';
import { createObjectStore } from './storage/index.js';
import { createDefaultWorkerDeps, type RunningWorker, startWorker } from './worker/index.js';

/** What a process runs: the API alone (`serve`), or everything in one process (`start`). */
export type Role = 'api' | 'embedded';

/** The application context plus the means to release every adapter. */
export interface RuntimeContext extends AppContext {
  /** Embedded role with Redis only: starts an ml worker in this process (after the registry has models). */
  startEmbeddedWorker?: () => Promise<void>;
  close(): Promise<void>;
}

/** The composition root: picks each adapter from configuration (embedded with Redis: an ml worker too). */
export async function openRuntime(
  config: Config,
  log: Logger,
  options: { role: Role },
): Promise<RuntimeContext> {
  const store = createObjectStore(config, log);
  const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));
  // No outage stops the API from starting: buckets are created on first write, views poll, the db reopens.
  await store
    .ensureBuckets?.()
    .catch((err: unknown) => log.warn({ err: errText(err) }, 'object store unreachable at start'));

  // This process serves the embedded database on a socket (for its threads and commands beside it);
  // `serve` too unless a `start` serves it (else two PGlites on one folder).
  const dbDir = embeddedDbDir(config);
  const host: EmbeddedHost | undefined =
    config.databaseUrl === undefined && (options.role === 'embedded' || !(await embeddedServerAnswers(dbDir)))
      ? await hostEmbeddedDatabase(dbDir)
      : undefined;
  // A freshly hosted database can outlast DB_TIMEOUT_MS on a loaded machine: 4 attempts (≈ 10 s).
  const open = () => openDatabase(config);
  const openHosted = async (): Promise<Database> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await open();
      } catch (err) {
        if (attempt >= 4 || !isMatchcastError(err, 'MC_ERR_DATABASE_UNAVAILABLE')) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
  };
  const { db, deferred } = await openDatabaseDeferred(host ? openHosted : open, {
    kind: config.databaseUrl ? 'postgres' : 'pglite',
    onOpen: () => log.info('database reachable again: opened and migrated'),
  });
  if (deferred) log.warn('database unreachable at start: serving without it, retrying in the background');
  else
    await importLegacyMetadata({ db, store }, log).catch((err: unknown) =>
      log.warn({ err: errText(err) }, 'metadata import failed'),
    );

  const queue = await createTaskQueue(config, { log });
  const cache = await createPredictionCache(config, log);
  const registry = createRegistry({ db, store }, config);
  // Built views outlive the process: a restart serves without building them again.
  const views = createServingViews({ db, store }, config, log, {
    cacheDir: path.join(config.dataDir, 'cache', 'views'),
  });
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
      await host?.close();
    },
  };
  if (options.role === 'embedded' && config.redisUrl) {
    ctx.startEmbeddedWorker = async () => {
      worker = await startWorker(config, await createDefaultWorkerDeps(config, log, { db, store }));
    };
  }
  return ctx;
}
