import { spawn } from 'node:child_process';
import type { Clock } from '../domain/index.js';
import type { RuntimeContext } from '../runtime.js';
import { lowerPriority } from './background-priority.js';
import { CLI } from './batch-process.js';
import { type ChildPoll, type ChildPollResult, createWorkChild } from './work-child.js';

/** Options of {@link createServerJobs}. */
export interface ServerJobsOptions {
  /** "Now" of the service: a scheduled run is as of this clock. Default the wall clock. */
  clock?: Clock;
  /** Grace of a child run at shutdown before it is killed, ms. Default `8000`. */
  stopGraceMs?: number;
}

/** What a scheduled pipeline run is asked to do. */
interface PipelineJob {
  /** Ingested first (`pipeline run --source`). */
  source?: string;
}

/** The serving process's one-at-a-time lane for background work. */
export interface ServerJobs {
  /** Runs `fn` in the lane: nothing else of the lane runs meanwhile (replay releases, source polls). */
  exclusive<T>(label: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `matchcast pipeline run` in a child process (its work never blocks serving), in the lane;
   * resolves with its exit code once the views show what it published.
   */
  runPipeline(job: PipelineJob): Promise<number>;
  /**
   * Polls a source, or ingests a replay release, in the work child process (in the lane); resolves
   * once the views show what it published.
   */
  poll(request: ChildPoll): Promise<ChildPollResult>;
  /** Resolves once everything queued has finished. */
  idle(): Promise<void>;
  /** Refuses new work, stops a running child (SIGTERM, then SIGKILL after the grace) and waits. */
  close(): Promise<void>;
}

/** The background work of `matchcast start`: its lane, and pipeline runs as child processes. */
export function createServerJobs(ctx: RuntimeContext, options: ServerJobsOptions = {}): ServerJobs {
  let lane: Promise<unknown> = Promise.resolve();
  let closed = false;
  let child: ReturnType<typeof spawn> | null = null;
  const work = createWorkChild(ctx.config, ctx.log, { stopGraceMs: options.stopGraceMs });

  function enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = lane.then(fn, fn);
    lane = run.catch(() => undefined);
    return run;
  }

  const refused = () => Promise.reject(new Error('the server is shutting down'));

  async function pipelineChild(job: PipelineJob): Promise<number> {
    if (closed) return 1;
    const clock = options.clock;
    const argv = [CLI, 'pipeline', 'run', ...(job.source ? ['--source', job.source] : [])];
    if (clock?.simulated) argv.push('--as-of', clock.now().toISOString());
    const started = performance.now();
    ctx.log.info({ argv: argv.slice(1) }, 'pipeline run started (child process)');
    let tail = '';
    const code = await new Promise<number>((resolve) => {
      const c = spawn(process.execPath, argv, {
        env: { ...process.env, DATA_DIR: ctx.config.dataDir },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child = c;
      lowerPriority(c.pid);
      c.stderr?.on('data', (d: Buffer) => {
        tail = (tail + d.toString('utf8')).slice(-2000);
      });
      c.on('error', () => resolve(1));
      c.on('exit', (exit, signal) => resolve(exit ?? (signal ? 1 : 0)));
    });
    child = null;
    await ctx.views.refresh().catch(() => undefined);
    const fields = { exit_code: code, seconds: Math.round((performance.now() - started) / 100) / 10 };
    if (code === 0) ctx.log.info(fields, 'pipeline run finished');
    else ctx.log.warn({ ...fields, stderr: tail.split('\n').slice(-4).join('\n') }, 'pipeline run failed');
    return code;
  }

  return {
    exclusive: (label, fn) =>
      closed
        ? refused()
        : enqueue(async () => {
            const started = performance.now();
            try {
              return await fn();
            } finally {
              ctx.log.debug({ label, ms: Math.round(performance.now() - started) }, 'exclusive work done');
            }
          }),
    runPipeline: (job) => (closed ? refused() : enqueue(() => pipelineChild(job))),
    poll: (request) =>
      closed
        ? refused()
        : enqueue(async () => {
            const result = await work.poll(request);
            if (result.published) await ctx.views.refresh().catch(() => undefined);
            return result;
          }),
    idle: () => enqueue(async () => undefined),
    async close() {
      closed = true;
      const c = child;
      if (c && c.exitCode === null) {
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), options.stopGraceMs ?? 8000);
        timer.unref();
      }
      await Promise.all([lane, work.close()]);
    },
  };
}
