import { type Clock, systemClock } from '../domain/index.js';
import { parseSchedule } from '../pipeline/index.js';
import type { RuntimeContext } from '../runtime.js';
import { startEmbeddedSchedule, startEmbeddedSources } from './embedded-schedule.js';
import { runServer } from './server.js';
import { removeServerFile, type ServerRecord, writeServerFile } from './server-file.js';
import { createServerJobs, type ServerJobs } from './server-jobs.js';

/**
 * Resolves once every embedded worker thread answers (at most `timeoutMs`), so that their start-up
 * lines come before the banner rather than scroll it away. Other queues resolve at once.
 */
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

/** Options of {@link serveEmbedded}. */
export interface ServeEmbeddedOptions {
  banner?: (url: string) => string;
  /** The service clock. Default the wall clock. */
  clock?: Clock;
  /** Folder of `server.json` (the handoff record). Default `config.dataDir`. */
  recordDir?: string;
  /** Added to `server.json` during a replay. */
  replay?: ServerRecord['replay'];
  /** Starts more background work on the job lane (the replay feed); returns its stop function. */
  background?: (jobs: ServerJobs) => () => void;
  /** Resolves when the server should shut down. Default: SIGTERM or SIGINT. */
  until?: Promise<unknown>;
}

/**
 * `matchcast start` after its first-run bootstrap: serves, runs jobs handed over by the CLI (`ingest`,
 * `pipeline`) and `PIPELINE_SCHEDULE` runs one at a time in this process, and records itself in
 * `server.json` so that the CLI finds it. Each job's published run serves as soon as it finishes.
 */
export async function serveEmbedded(
  ctx: RuntimeContext,
  options: ServeEmbeddedOptions = {},
): Promise<number> {
  const { config, log } = ctx;
  const clock = options.clock ?? systemClock;
  const jobs = createServerJobs(ctx, { clock });
  ctx.clock = clock;
  const stops: Array<() => void> = [];
  if (config.pipelineSchedule) {
    const schedule = parseSchedule(config.pipelineSchedule);
    stops.push(startEmbeddedSchedule({ jobs, schedule, clock, source: config.pipelineSource, log }).stop);
  }
  if (config.sourcePolling !== false) stops.push(startEmbeddedSources({ ctx, jobs }).stop);
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
