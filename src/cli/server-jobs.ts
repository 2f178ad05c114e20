import { spawn } from 'node:child_process';
import type { Clock } from '../domain/index.js';
import type { RuntimeContext } from '../runtime.js';
import { CLI, childExit, lowerPriority, stopChild } from './batch-process.js';
import { type ChildPoll, type ChildPollResult, createWorkChild } from './work-child.js';

/** Grace of a child at shutdown before it is killed, ms. */
const STOP_GRACE_MS = 8000;

export type ServerJobs = ReturnType<typeof createServerJobs>;

/** The background work of `matchcast start`, one job at a time; a pipeline run is as of `clock`. */
export function createServerJobs(ctx: RuntimeContext, clock: Clock) {
  let lane: Promise<unknown> = Promise.resolve();
  let closed = false;
  let child: ReturnType<typeof spawn> | null = null;
  const work = createWorkChild(ctx.config, ctx.log);

  function enqueue<T>(fn: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error('the server is shutting down'));
    const run = lane.then(fn, fn);
    lane = run.catch(() => undefined);
    return run;
  }

  async function pipelineChild(source: string | undefined): Promise<number> {
    if (closed) return 1;
    const argv = [CLI, 'pipeline', 'run', ...(source ? ['--source', source] : [])];
    if (clock.simulated) argv.push('--as-of', clock.now().toISOString());
    const started = performance.now();
    ctx.log.info({ argv: argv.slice(1) }, 'pipeline run started (child process)');
    let tail = '';
    const c = spawn(process.execPath, argv, {
      env: { ...process.env, DATA_DIR: ctx.config.dataDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = c;
    lowerPriority(c.pid);
    c.stderr?.on('data', (d: Buffer) => {
      tail = (tail + d.toString('utf8')).slice(-2000);
    });
    const code = (await childExit(c)).code ?? 1;
    child = null;
    await refreshViews();
    const fields = { exit_code: code, seconds: Math.round((performance.now() - started) / 100) / 10 };
    if (code === 0) ctx.log.info(fields, 'pipeline run finished');
    else ctx.log.warn({ ...fields, stderr: tail.split('\n').slice(-4).join('\n') }, 'pipeline run failed');
    return code;
  }
  const refreshViews = () => ctx.views.refresh().catch(() => undefined);

  return {
    // Each resolves once the views show what the job published.
    runPipeline: (source?: string) => enqueue(() => pipelineChild(source)),
    poll: (request: ChildPoll) =>
      enqueue(async (): Promise<ChildPollResult> => {
        const result = await work.poll(request);
        if (result.published) await refreshViews();
        return result;
      }),
    idle: async () => {
      await lane;
    },
    /** Refuses new work, stops a running child (SIGTERM, then SIGKILL after the grace) and waits. */
    async close() {
      closed = true;
      await Promise.all([child && stopChild(child, STOP_GRACE_MS), lane, work.close()]);
    },
  };
}
