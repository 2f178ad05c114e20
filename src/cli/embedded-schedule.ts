import type { AdminJob } from '../api/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { nextRun, type PipelineSchedule } from '../pipeline/index.js';
import type { RuntimeContext } from '../runtime.js';
import { startSourceSchedule } from '../sources/index.js';
import type { ServerJobs } from './server-jobs.js';
import { repredictAfterPoll } from './source-repredict.js';

/** Options of {@link startEmbeddedSchedule}. */
export interface EmbeddedScheduleOptions {
  jobs: ServerJobs;
  schedule: PipelineSchedule;
  /** The service clock the schedule follows (a replay clock fires on simulated time). */
  clock: Clock;
  /** Ingested before each run (`pipeline run --source`). Default none. */
  source?: string;
  log: Logger;
  /** Wall-clock interval between checks, ms. Default `1000`. */
  pollMs?: number;
}

/**
 * `PIPELINE_SCHEDULE` in `matchcast start`: submits `pipeline run` to the server's one-at-a-time job
 * lane at each firing of the schedule on the service clock. A firing while the previous scheduled run
 * is still queued or running is skipped (logged), so runs never pile up behind a slow pipeline.
 */
export function startEmbeddedSchedule(options: EmbeddedScheduleOptions): { stop(): void } {
  const { jobs, schedule, clock, log } = options;
  let next = nextRun(schedule, clock.now());
  let pending: AdminJob | null = null;
  log.info({ next: next.toISOString() }, 'pipeline schedule armed');
  const timer = setInterval(() => {
    const now = clock.now();
    if (now < next) return;
    next = nextRun(schedule, now);
    if (pending && (pending.state === 'queued' || pending.state === 'running')) {
      log.warn(
        { job: pending.id, next: next.toISOString() },
        'scheduled run skipped: the previous one is still going',
      );
      return;
    }
    const argv = ['run', ...(options.source ? ['--source', options.source] : [])];
    pending = jobs.submit('pipeline', argv, 'schedule');
    log.info(
      { job: pending.id, as_of: now.toISOString(), next: next.toISOString() },
      'scheduled pipeline run submitted',
    );
  }, options.pollMs ?? 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * The configured sources in `matchcast start`: each polled on its period, on the server's
 * one-at-a-time job lane (a poll never runs beside an ingest or a pipeline run); the matches a poll
 * changed are re-predicted and the published run is served at once.
 */
export function startEmbeddedSources(options: {
  ctx: RuntimeContext;
  jobs: ServerJobs;
  /** Wall-clock interval between checks for due sources, ms. Default `5000`. */
  checkMs?: number;
}): { stop(): void } {
  const { ctx, jobs } = options;
  const schedule = startSourceSchedule({
    deps: {
      db: ctx.db,
      store: ctx.store,
      log: ctx.log,
      afterIngest: repredictAfterPoll({
        config: ctx.config,
        db: ctx.db,
        store: ctx.store,
        log: ctx.log,
        registry: ctx.registry,
        refreshed: () => ctx.views.refresh(),
      }),
    },
    run: (name, poll) => jobs.exclusive(`source ${name}`, poll),
    checkMs: options.checkMs,
    log: ctx.log,
  });
  return { stop: () => void schedule.stop() };
}
