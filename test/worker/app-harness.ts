// Builds the API with the live and task routes over real adapters, and spawns worker processes.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { liveRoutes } from '../../src/api/routes/live.js';
import { tasksRoutes } from '../../src/api/routes/tasks.js';
import { createPredictionCache, type PredictionCache } from '../../src/cache/index.js';
import { createLogger } from '../../src/logger.js';
import { createTaskQueue, type TaskQueue } from '../../src/queue/index.js';
import { createServingViews } from '../../src/serving/index.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';
import { createFixture, dropQueueKeys, type Fixture } from './fixtures.js';

export const API_KEY = 'test-key-0123456789abcdef';
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface LiveApp {
  app: FastifyInstance;
  /** What the app was built with (a second app can share its queue, cache and views). */
  ctx: AppContext;
  fx: Fixture;
  queue: TaskQueue;
  cache: PredictionCache;
  get(url: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startLiveApp(env: Record<string, string | undefined> = {}): Promise<LiveApp> {
  const fx = await createFixture(env);
  const log = createLogger('silent');
  const queue = await createTaskQueue(fx.config, { log });
  const cache = await createPredictionCache(fx.config, log);
  // Started as `matchcast serve` does: the served run's id is part of the live cache key.
  const views = createServingViews({ db: fx.db, store: fx.store }, fx.config, log);
  await views.start();
  const ctx: AppContext = {
    config: fx.config,
    log,
    db: fx.db,
    store: fx.store,
    queue,
    cache,
    registry: fx.registry,
    // buildApp registers every route module; the precomputed ones need real views (no file: 503).
    views,
  };
  const app = await buildApp(ctx, { logRequests: false });
  // Until the lead lists these modules in src/api/routes/index.ts, register them here.
  if (!app.hasRoute({ method: 'GET', url: '/predict/:match_id' })) await liveRoutes(app, ctx);
  if (!app.hasRoute({ method: 'GET', url: '/monitoring/task_status/:task_id' })) await tasksRoutes(app, ctx);
  await app.ready();
  return {
    app,
    ctx,
    fx,
    queue,
    cache,
    async get(url) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': API_KEY } });
      return { status: res.statusCode, body: res.json() };
    },
    async close() {
      await app.close();
      await ctx.views.close();
      await queue.close();
      await cache.close();
      await dropQueueKeys(fx.config.redisUrl, fx.config.queueName);
      await fx.cleanup();
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `matchcast worker` for the fixture's config and waits until it says it started. */
export async function spawnWorker(
  fx: Fixture,
  extraEnv: Record<string, string> = {},
): Promise<WorkerProcess> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: fx.config.dataDir,
    REDIS_URL: fx.config.redisUrl ?? '',
    QUEUE_NAME: fx.config.queueName,
    ALIAS_REFRESH_MS: String(fx.config.aliasRefreshMs),
    VIEW_REFRESH_MS: String(fx.config.viewRefreshMs),
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '3000',
    ...extraEnv,
  };
  const child = spawnGroup(process.execPath, ['--import', 'tsx', 'test/worker/run-worker.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = setInterval(() => {
        if (out.includes('worker started')) {
          clearInterval(check);
          resolve(true);
        }
      }, 25);
      exited.then(() => {
        clearInterval(check);
        resolve(false);
      });
    }),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20_000).unref()),
  ]);
  const proc: WorkerProcess = {
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) signalGroup(child, signal);
      return exited;
    },
  };
  if (!started) {
    await proc.stop('SIGKILL');
    throw new Error(`worker did not start:\n${out}`);
  }
  return proc;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
