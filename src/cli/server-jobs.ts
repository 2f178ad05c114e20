import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { AdminJob, AdminJobKind, AdminJobs } from '../api/index.js';
import type { Clock } from '../domain/index.js';
import { REDACT_PATHS } from '../logger.js';
import type { PipelineDeps, Progress, RepredictCache } from '../pipeline/index.js';
import type { RuntimeContext } from '../runtime.js';
import { ingestCommand } from './ingest.js';
import { pipelineCommand } from './pipeline.js';

/** Options of {@link createServerJobs}. */
export interface ServerJobsOptions {
  /** "Now" of the service: a job without `--as-of` runs as of this clock. Default the wall clock. */
  clock?: Clock;
  /** Finished jobs kept for `GET /admin/jobs/{id}`. Default `50`. */
  keep?: number;
  /** Characters of each output stream kept (the tail). Default 1 MiB. */
  maxOutput?: number;
  /** Called after each job, once the serving views have reloaded. */
  onFinished?: (job: AdminJob) => void;
}

/** A job runner that also takes in-process work (the replay feed, incremental re-prediction). */
export interface ServerJobs extends AdminJobs {
  /** Runs `fn` in the same one-at-a-time lane as the jobs (nothing else touches the database meanwhile). */
  exclusive<T>(label: string, fn: () => Promise<T>): Promise<T>;
  /** Resolves once every queued job has finished. */
  idle(): Promise<void>;
  /** Refuses new jobs and waits for the queued ones (shutdown, before the database closes). */
  close(): Promise<void>;
}

/** Pipeline stages report one plain line per finished step into the job's stderr. */
function textProgress(write: (text: string) => void): Progress {
  return {
    step(stage, name) {
      const started = performance.now();
      return {
        tick() {},
        update() {},
        done(fields = {}) {
          const extra = Object.entries(fields)
            .map(
              ([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : String(v)}`,
            )
            .join(' ');
          write(`✓ ${stage}/${name} ${Math.round(performance.now() - started)} ms ${extra}\n`);
        },
      };
    },
  };
}

const hasAsOf = (argv: readonly string[]) => argv.some((a) => a === '--as-of' || a.startsWith('--as-of='));
const hasNow = (argv: readonly string[]) => argv.some((a) => a === '--now' || a.startsWith('--now='));

/**
 * Runs `matchcast ingest` / `matchcast pipeline` command lines inside the serving process, one at a
 * time, on its own database and store (the embedded database admits one process). Each job's output
 * is captured for the CLI that handed it over; the serving views reload as soon as it finishes, so a
 * newly published run serves without a restart.
 */
export function createServerJobs(ctx: RuntimeContext, options: ServerJobsOptions = {}): ServerJobs {
  const keep = options.keep ?? 50;
  const maxOutput = options.maxOutput ?? 1 << 20;
  const jobs = new Map<string, AdminJob>();
  let lane: Promise<unknown> = Promise.resolve();
  let closed = false;
  // The warm state of the re-predictions that ingest jobs run (model, predictions, feature checkpoints).
  const repredictCache: RepredictCache = {};

  const append = (job: AdminJob, stream: 'stdout' | 'stderr', text: string) => {
    const next = job[stream] + text;
    job[stream] = next.length > maxOutput ? next.slice(next.length - maxOutput) : next;
  };

  function enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = lane.then(fn, fn);
    lane = run.catch(() => undefined);
    return run;
  }

  async function execute(job: AdminJob): Promise<void> {
    job.state = 'running';
    job.started_at = new Date().toISOString();
    const out = (t: string) => append(job, 'stdout', t);
    const err = (t: string) => append(job, 'stderr', t);
    const clock = options.clock;
    // On a replay clock a job without its own time runs as of the clock: a pipeline run (--as-of), and
    // an ingest, whose prices are known, and whose changed matches are re-predicted, as of then (--now).
    const argv = !clock?.simulated
      ? job.argv
      : job.kind === 'pipeline' && !hasAsOf(job.argv)
        ? [...job.argv, '--as-of', clock.now().toISOString()]
        : job.kind === 'ingest' && !hasNow(job.argv) && !job.argv.includes('--synthetic')
          ? [...job.argv, '--now', clock.now().toISOString()]
          : job.argv;
    ctx.log.info({ job: job.id, kind: job.kind, argv, origin: job.origin }, 'job started');
    try {
      if (job.kind === 'ingest') {
        job.exit_code = await ingestCommand(argv, {
          out,
          err,
          config: ctx.config,
          deps: { db: ctx.db, store: ctx.store, registry: ctx.registry },
          repredictCache,
        });
      } else {
        const log = pino(
          {
            name: 'matchcast-job',
            level: ctx.config.logLevel,
            redact: { paths: REDACT_PATHS, censor: '[redacted]' },
          },
          { write: err },
        );
        const deps: PipelineDeps = {
          config: ctx.config,
          db: ctx.db,
          store: ctx.store,
          registry: ctx.registry,
          log,
          progress: textProgress(err),
        };
        job.exit_code = await pipelineCommand(argv, { out, err, config: ctx.config, deps });
      }
    } catch (e) {
      err(`${(e as Error).stack ?? String(e)}\n`);
      job.exit_code = 1;
    }
    // Serve what the job published now rather than at the next poll — and before the job reads as
    // finished: the CLI that handed it over returns on that state, and what it published must serve then.
    await ctx.views.refresh().catch(() => undefined);
    job.state = job.exit_code === 0 ? 'done' : 'failed';
    job.finished_at = new Date().toISOString();
    ctx.log.info({ job: job.id, exit_code: job.exit_code }, 'job finished');
    options.onFinished?.(job);
  }

  return {
    submit(kind: AdminJobKind, argv: string[], origin = 'cli'): AdminJob {
      const job: AdminJob = {
        id: randomUUID(),
        kind,
        argv: [...argv],
        origin,
        state: 'queued',
        exit_code: null,
        stdout: '',
        stderr: '',
        created_at: new Date().toISOString(),
        started_at: null,
        finished_at: null,
      };
      jobs.set(job.id, job);
      if (closed) {
        job.state = 'failed';
        job.exit_code = 1;
        job.stderr = 'the server is shutting down\n';
        job.finished_at = job.created_at;
        return job;
      }
      for (const [id, j] of jobs) {
        if (jobs.size <= keep) break;
        if (j.state === 'done' || j.state === 'failed') jobs.delete(id);
      }
      void enqueue(() => execute(job));
      return job;
    },
    get: (id) => jobs.get(id),
    exclusive: (label, fn) =>
      closed
        ? Promise.reject(new Error('the server is shutting down'))
        : enqueue(async () => {
            const started = performance.now();
            try {
              return await fn();
            } finally {
              ctx.log.debug({ label, ms: Math.round(performance.now() - started) }, 'exclusive work done');
            }
          }),
    idle: () => enqueue(async () => undefined),
    async close() {
      closed = true;
      await lane;
    },
  };
}
