// One real embedded matchcast for the contract, fuzz and security tests: the composition root
// (openRuntime's adapters: PGlite in memory, folder store, in-process queue with worker threads, memory cache)
// over a temp DATA_DIR, bootstrapped like `matchcast start` on a small synthetic league, listening
// on a free port. Also: preparing a DATA_DIR for a spawned `matchcast serve|start`, and spawning it.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/api/index.js';
import { type Config, parseConfig } from '../../src/config.js';
import { MatchesRepository } from '../../src/db/index.js';
import { ingestSynthetic } from '../../src/ingest/index.js';
import { createLogger, type Logger, REDACT_PATHS } from '../../src/logger.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { openRuntime, type RuntimeContext } from '../../src/runtime.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A fresh random key of `bytes` bytes in hex, like an operator would generate (spec §5 rule 6). */
export function newApiKey(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/** Small league: 2 regions × 8 teams × 3 seasons, current season straddling today (future fixtures). */
const LEAGUE = { seed: 11, regions: 2, teamsPerRegion: 8, seasons: 3 } as const;

/** Ingests the synthetic league and runs the first-start pipeline, as `matchcast start` does. */
async function bootstrap(ctx: RuntimeContext): Promise<void> {
  if ((await new MatchesRepository(ctx.db).count()) === 0) {
    await ingestSynthetic({ ...LEAGUE }, { db: ctx.db, store: ctx.store });
  }
  await bootstrapFirstRun(
    {
      config: ctx.config,
      db: ctx.db,
      store: ctx.store,
      registry: ctx.registry,
      log: ctx.log,
      progress: silentProgress,
    },
    new Date(),
    { refitDays: 90 },
  );
}

export interface EmbeddedApp {
  url: string;
  apiKey: string;
  config: Config;
  ctx: RuntimeContext;
  app: FastifyInstance;
  /** Every JSON log line the app wrote (pino output with the production redaction). */
  logs: string[];
  /** A live match id (a future fixture of the predictions file) and a finished one. */
  futureMatchId: number;
  anyMatchId: number;
  fetch(pathname: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Builds the real app once: temp DATA_DIR, openRuntime(role embedded), synthetic ingest, first-run
 * pipeline, buildApp, views started, listening on 127.0.0.1 with a free port.
 */
export async function startEmbeddedApp(env: Record<string, string> = {}): Promise<EmbeddedApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-contract-'));
  const apiKey = env.API_KEY ?? newApiKey();
  const config = parseConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
    API_KEY: apiKey,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(line);
      done();
    },
  });
  // The production logger's options (src/logger.ts), pointed at a buffer instead of stdout.
  const log: Logger = pino(
    { name: 'matchcast', level: 'info', redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    sink,
  );
  // The embedded role as `matchcast start` runs it: PGlite on disk served on its socket, which the
  // worker threads share (the registry and the published run are rows there).
  const ctx = await openRuntime(config, log, { role: 'embedded' });
  try {
    await bootstrap(ctx);
    await ctx.startEmbeddedWorker?.();
    const app = await buildApp(ctx);
    await ctx.views.start();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const url = `http://127.0.0.1:${port}`;
    const predictions = (await (
      await fetch(`${url}/predict/predictions/`, { headers: { 'x-api-key': apiKey } })
    ).json()) as Array<{ match_id: number; is_future: boolean }>;
    const future = predictions.find((p) => p.is_future);
    if (!future) throw new Error('the synthetic league has no future fixture to predict live');
    return {
      url,
      apiKey,
      config,
      ctx,
      app,
      logs,
      futureMatchId: future.match_id,
      anyMatchId: predictions[0]!.match_id,
      fetch(pathname, init = {}) {
        const { key, ...rest } = init;
        const headers = new Headers(rest.headers);
        const k = key === undefined ? apiKey : key;
        if (k !== null && !headers.has('x-api-key')) headers.set('x-api-key', k);
        return fetch(`${url}${pathname}`, {
          ...rest,
          headers,
          signal: rest.signal ?? AbortSignal.timeout(35_000),
        });
      },
      async close() {
        await app.close();
        await ctx.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Prepares DATA_DIR (PGlite under db/, folder store under objects/) for a spawned `serve` or `start`. */
export async function prepareDataDir(dir?: string): Promise<string> {
  const dataDir = dir ?? (await mkdtemp(path.join(tmpdir(), 'mc-datadir-')));
  const config = parseConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const ctx = await openRuntime(config, createLogger('silent'), { role: 'api' });
  try {
    await bootstrap(ctx);
  } finally {
    await ctx.close();
  }
  return dataDir;
}

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  /** stdout + stderr so far. */
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Spawns `node bin/matchcast.js <command>` (serve or start) with PORT=0 and waits (bounded) for the
 * `listening` log line that carries its URL.
 */
export async function spawnMatchcast(
  command: 'serve' | 'start',
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<SpawnedServer> {
  const child = spawnGroup(process.execPath, ['bin/matchcast.js', command], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Bounded: a long soak at info level writes tens of MB of request lines.
  let out = '';
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 4_000_000) out = out.slice(-2_000_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      signalGroup(child, 'SIGKILL');
      reject(new Error(`matchcast ${command} did not listen within ${timeoutMs} ms:\n${out.slice(-2000)}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      const m = /"url":"(http:\/\/[^"]+)","pid"/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(m[1]!.replace('localhost', '127.0.0.1'));
      }
    }, 50);
    exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`matchcast ${command} exited with ${code}:\n${out.slice(-2000)}`));
    });
  });
  return {
    child,
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
