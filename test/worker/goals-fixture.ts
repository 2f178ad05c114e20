// A published run with a goals model on the synthetic league: what the live goals markets
// read. Built by the real `pipeline run` (bootstrap), so live and precomputed come from one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { createPredictionCache, type PredictionCache } from '../../src/cache/index.js';
import { type Config, parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { ingestSynthetic } from '../../src/ingest/index.js';
import { createLogger } from '../../src/logger.js';
import type * as goals from '../../src/model/index.js';
import { parseMarketsRows } from '../../src/model/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { goalsModelName } from '../../src/pipeline/stage-goals.js';
import { createTaskQueue, type TaskQueue } from '../../src/queue/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { readArtifact } from '../../src/runs/index.js';
import { createServingViews } from '../../src/serving/index.js';
import { createObjectStore, type ObjectStore, readParquet } from '../../src/storage/index.js';
import { hostSharedDatabase } from '../helpers/shared-db.js';
import { dropQueueKeys } from './fixtures.js';

export const API_KEY = 'test-key-0123456789abcdef';
export const AS_OF = new Date('2026-03-01T12:00:00Z');

export interface GoalsFixture {
  dir: string;
  config: Config;
  store: ObjectStore;
  /** The embedded database of `dir`, hosted on its socket (worker threads connect to it). */
  db: Database;
  goalsRegistry: ReturnType<typeof createRegistry>;
  /** Rows of the published markets file (what the precomputed route serves). */
  markets: goals.MarketsRow[];
  cleanup(): Promise<void>;
}

/** Synthetic league → first start (features, 1X2 models, goals model, markets file), published. */
export async function createGoalsFixture(
  env: Record<string, string | undefined> = {},
): Promise<GoalsFixture> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mc-goals-live-'));
  const config = parseConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    API_KEY,
    ALIAS_REFRESH_MS: '50',
    VIEW_REFRESH_MS: '100',
    ...env,
  });
  const store = createObjectStore(config);
  let shared: Awaited<ReturnType<typeof hostSharedDatabase>> | undefined;
  const log = createLogger('silent');
  let obj: Awaited<ReturnType<typeof readArtifact>>;
  try {
    shared = await hostSharedDatabase(config);
    const db = shared.db;
    await ingestSynthetic({ seed: 3, now: AS_OF, regions: 2, teamsPerRegion: 8, seasons: 3 }, { db, store });
    const deps = {
      config,
      db,
      store,
      registry: createRegistry({ db, store }, config),
      log,
      progress: silentProgress,
    };
    await bootstrapFirstRun(deps, AS_OF, { refitDays: 90 });
    obj = await readArtifact({ db, store }, 'markets');
    if (!obj) throw new Error('the pipeline wrote no markets file');
  } catch (err) {
    await shared?.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const db = shared.db;
  return {
    dir,
    config,
    store,
    db,
    goalsRegistry: createRegistry({ db, store }, { modelName: goalsModelName(config.modelName) }),
    markets: parseMarketsRows(await readParquet(obj.body)),
    async cleanup() {
      await shared.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface GoalsLiveApp {
  app: FastifyInstance;
  queue: TaskQueue;
  cache: PredictionCache;
  get(url: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** The real app over the fixture's store, with the queue and cache its config selects. */
export async function startGoalsApp(fx: GoalsFixture, config: Config = fx.config): Promise<GoalsLiveApp> {
  const log = createLogger('silent');
  const queue = await createTaskQueue(config, { log });
  const cache = await createPredictionCache(config, log);
  const views = createServingViews({ db: fx.db, store: fx.store }, config, log);
  // As `matchcast serve` does: the served run's id is part of the cache key.
  await views.start();
  const ctx: AppContext = {
    config,
    log,
    db: fx.db,
    store: fx.store,
    queue,
    cache,
    registry: createRegistry({ db: fx.db, store: fx.store }, config),
    views,
  };
  const app = await buildApp(ctx, { logRequests: false });
  await app.ready();
  return {
    app,
    queue,
    cache,
    async get(url) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': API_KEY } });
      return { status: res.statusCode, body: res.json() };
    },
    async close() {
      await app.close();
      await views.close();
      await queue.close();
      await cache.close();
      await dropQueueKeys(config.redisUrl, config.queueName);
    },
  };
}
