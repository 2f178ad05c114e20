import { type Clock, systemClock } from '../domain/index.js';
import { parseSchedule } from '../pipeline/index.js';
import type { RuntimeContext } from '../runtime.js';
import { startSourceSchedule } from '../sources/index.js';
import { startEmbeddedSchedule } from './embedded-schedule.js';
import { type RunServerOptions, runServer } from './server.js';
import { removeServerFile, type ServerRecord, writeServerFile } from './server-file.js';
import { createServerJobs, type ServerJobs } from './server-jobs.js';

// Waits (at most `timeoutMs`) for every worker thread to answer: their start-up lines then come before
// the banner rather than scroll it away.
async function workerThreadsReady(ctx: RuntimeContext, timeoutMs = 20_000): Promise<void> {
  if (ctx.queue.kind !== 'in-process') return;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const workers = await ctx.queue.workers();
    if (workers.every((w) => w.ping.ok)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // A thread's lines reach the process's stdout shortly after its answer.
  await new Promise((resolve) => setTimeout(resolve, 100));
}

interface ServeEmbeddedOptions extends Pick<RunServerOptions, 'banner' | 'until'> {
  clock?: Clock;
  /** Folder of `server.json`. Default `config.dataDir`. */
  recordDir?: string;
  replay?: ServerRecord['replay'];
  /** Starts more background work on the job lane (the replay feed); returns its stop function. */
  background?: (jobs: ServerJobs) => () => void;
}

/**
 * `matchcast start` after its first-run bootstrap: serves, runs scheduled runs and source polls one at
 * a time in child processes, and records itself in `server.json` (read by `export` and `start --reset`).
 */
export async function serveEmbedded(
  ctx: RuntimeContext,
  options: ServeEmbeddedOptions = {},
): Promise<number> {
  const { config, log } = ctx;
  const clock = options.clock ?? systemClock;
  const jobs = createServerJobs(ctx, clock);
  ctx.clock = clock;
  const stops: Array<() => void> = [];
  if (config.pipelineSchedule)
    stops.push(
      startEmbeddedSchedule(jobs, parseSchedule(config.pipelineSchedule), clock, config.pipelineSource, log),
    );
  if (config.sourcePolling !== false) {
    // On the job lane, so never beside an ingest or a pipeline run.
    const sources = startSourceSchedule({
      deps: { db: ctx.db, store: ctx.store, log },
      run: async (name) => (await jobs.poll({ name, now: new Date().toISOString() })).outcome,
    });
    stops.push(() => void sources.stop());
  }
  if (options.background) stops.push(options.background(jobs));
  const recordDir = options.recordDir ?? config.dataDir;
  return runServer(ctx, {
    banner: options.banner,
    beforeBanner: () => workerThreadsReady(ctx),
    until: options.until,
    onListening: ({ port }) => {
      const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
      writeServerFile(recordDir, {
        pid: process.pid,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        started_at: new Date().toISOString(),
        state_dir: config.dataDir,
        ...(options.replay ? { replay: options.replay } : {}),
      });
    },
    beforeClose: async () => {
      for (const stop of stops) stop();
      await jobs.close();
      removeServerFile(recordDir);
    },
  });
}
