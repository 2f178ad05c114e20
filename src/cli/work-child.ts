import type { ChildProcess } from 'node:child_process';
import type { Config } from '../config.js';
import { openDatabase } from '../db/index.js';
import { ingestPath } from '../ingest/index.js';
import { createLogger, type Logger } from '../logger.js';
import {
  bootstrapFirstRun,
  type RepredictCache,
  type RepredictResult,
  repredictMatches,
} from '../pipeline/index.js';
import { createRegistry } from '../registry/index.js';
import { type PollOutcome, pollSource } from '../sources/index.js';
import { createObjectStore } from '../storage/index.js';
import { lowerPriority, spawnBatch, stopChild } from './batch-process.js';
import { repredictAfterPoll } from './source-repredict.js';

/** One poll asked of the child. */
export interface ChildPoll {
  name: string;
  /** The poll's "now" (ISO); default the child's wall clock. */
  now?: string;
  /** A replay release to ingest instead of fetching the URL: its matches are all re-predicted. */
  body?: string;
}

/** A first load asked of the child: a folder ingested as of `asOf`, then the first-start pipeline. */
export interface ChildBootstrap {
  folder?: string;
  asOf: string;
}

/** What the child answers: the poll's outcome and, when it re-predicted, what that did. */
export interface ChildPollResult {
  outcome: PollOutcome;
  repredict: Omit<RepredictResult, 'published'> | null;
  published: boolean;
}

type Request = { poll: ChildPoll } | { bootstrap: ChildBootstrap };
type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/**
 * Source polls and replay releases run in one long-lived child process, started on first use, so their
 * work never blocks the serving event loop. One that dies is started again by the next poll; what it
 * left half done is finished from `pending_repredictions`.
 */
export function createWorkChild(
  config: Config,
  log: Logger,
  options: { stopGraceMs?: number; logLevel?: string } = {},
) {
  let child: ChildProcess | null = null;
  let nextId = 1;
  let closed = false;
  const waiting = new Map<number, { resolve: (r: never) => void; reject: (e: Error) => void }>();

  const failAll = (why: string) => {
    for (const w of waiting.values()) w.reject(new Error(why));
    waiting.clear();
  };

  function ensure(): ChildProcess {
    if (child && child.exitCode === null && child.signalCode === null) return child;
    // `_work-child`: the internal command of the child side. The server's own settings come over the
    // channel, not the environment (a replay or a test runs with settings of its own).
    const c = spawnBatch(['_work-child'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    lowerPriority(c.pid);
    c.on('message', (m: Reply) => {
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.ok) w.resolve(m.result as never);
      else w.reject(new Error(m.error));
    });
    c.once('exit', (code, signal) => {
      if (child === c) child = null;
      if (!closed) log.warn({ exit_code: code, signal }, 'work child exited; the next poll starts another');
      failAll(`the work child exited (${signal ?? code})`);
    });
    c.once('error', (err) => failAll(`the work child failed: ${err.message}`));
    // Only warnings and errors by default: the server logs each poll's summary.
    c.send({ config: { ...config, logLevel: options.logLevel ?? 'warn' } });
    child = c;
    return c;
  }

  function ask<T>(request: Request): Promise<T> {
    if (closed) return Promise.reject(new Error('the server is shutting down'));
    const c = ensure();
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (r: never) => void, reject });
      c.send({ id, request }, (err) => {
        if (err && waiting.delete(id)) reject(err);
      });
    });
  }

  return {
    poll: (request: ChildPoll) => ask<ChildPollResult>({ poll: request }),
    /** Ingests a folder (when given) and runs the first-start pipeline; resolves with the rows inserted. */
    bootstrap: (request: ChildBootstrap) => ask<{ inserted: number }>({ bootstrap: request }),
    /** The child's process id while it runs. */
    pid: () => (child?.exitCode === null ? child.pid : undefined),
    /** Stops the child (SIGTERM, SIGKILL after the grace); a poll in flight is rejected. */
    async close() {
      closed = true;
      if (child) await stopChild(child, options.stopGraceMs ?? 8000);
    },
  };
}

/**
 * The child side: answers polls one at a time until its IPC channel closes. SIGTERM keeps the default
 * disposition: a poll stops at once and its open transaction rolls back.
 */
export async function workChildCommand(): Promise<number> {
  if (!process.send) {
    process.stderr.write('matchcast: this command is run by `matchcast start`, not by hand\n');
    return 2;
  }
  // One listener from the first moment: a poll sent right behind the settings waits for them.
  let lane: Promise<unknown> = Promise.resolve();
  let opened: Promise<Worker> | null = null;
  process.on('message', (m: { config: Config } | { id: number; request: Request }) => {
    if ('config' in m) {
      opened ??= openWorker(m.config);
      return;
    }
    lane = lane.then(async () => {
      let reply: Reply;
      try {
        if (!opened) throw new Error('the work child got a poll before its settings');
        const worker = await opened;
        const r = m.request;
        reply = {
          id: m.id,
          ok: true,
          result: 'poll' in r ? await worker.run(r.poll) : await worker.bootstrap(r.bootstrap),
        };
      } catch (err) {
        reply = { id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      process.send?.(reply);
    });
  });
  await new Promise<void>((resolve) => process.once('disconnect', resolve));
  await lane;
  const worker = opened as Promise<Worker> | null;
  await (await worker?.catch(() => null))?.close();
  return 0;
}

type Worker = Awaited<ReturnType<typeof openWorker>>;

async function openWorker(config: Config) {
  const log = createLogger(config.logLevel, 'matchcast-work');
  const db = await openDatabase(config);
  const store = createObjectStore(config, log);
  const registry = createRegistry({ db, store }, config);
  const deps = { config, db, store, registry, log };
  const cache: RepredictCache = {};

  async function run(request: ChildPoll): Promise<ChildPollResult> {
    const now = request.now ? new Date(request.now) : new Date();
    let re: RepredictResult | null = null;
    let published = false;
    const refreshed = async () => {
      published = true;
    };
    const body = request.body;
    // A fetched poll re-predicts as `sources poll` does; a replay release re-predicts all it changed.
    const afterIngest =
      body === undefined
        ? repredictAfterPoll({ ...deps, cache, refreshed })
        : async (ids: number[], asOf: Date) => {
            re = await repredictMatches(deps, ids, { asOf, cache, actor: 'replay' });
            return re.published ? `run ${re.run_id} published` : (re.reason ?? undefined);
          };
    const fetcher =
      body === undefined
        ? undefined
        : async () => ({ status: 'ok' as const, body: Buffer.from(body), etag: null, lastModified: null });
    const outcome = await pollSource({ db, store, log, afterIngest }, request.name, { now, fetcher });
    const done = re as RepredictResult | null;
    if (!done) return { outcome, repredict: null, published };
    const { published: event, ...summary } = done;
    return { outcome, repredict: summary, published: event !== null };
  }

  return {
    run,
    async bootstrap(request: ChildBootstrap) {
      const asOf = new Date(request.asOf);
      const report = request.folder
        ? await ingestPath(request.folder, { db, store, log }, { now: asOf })
        : null;
      await bootstrapFirstRun(deps, asOf);
      return { inserted: report?.inserted ?? 0 };
    },
    async close() {
      await db.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    },
  };
}
