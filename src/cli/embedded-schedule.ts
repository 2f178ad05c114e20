import type { Clock } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { nextRun, type PipelineSchedule } from '../pipeline/index.js';
import type { RuntimeContext } from '../runtime.js';
import { startSourceSchedule } from '../sources/index.js';
import type { ServerJobs } from './server-jobs.js';

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
 * `PIPELINE_SCHEDULE` in `matchcast start`: at each firing of the schedule on the service clock, a
 * `pipeline run` in a child process (the server's lane runs one at a time). A firing while the
 * previous scheduled run is still going is skipped (logged), so runs never pile up.
 */
export function startEmbeddedSchedule(options: EmbeddedScheduleOptions): { stop(): void } {
  const { jobs, schedule, clock, log } = options;
  let next = nextRun(schedule, clock.now());
  let pending = false;
  log.info({ next: next.toISOString() }, 'pipeline schedule armed');
  const timer = setInterval(() => {
    const now = clock.now();
    if (now < next) return;
    next = nextRun(schedule, now);
    if (pending) {
      log.warn({ next: next.toISOString() }, 'scheduled run skipped: the previous one is still going');
      return;
    }
    pending = true;
    log.info({ as_of: now.toISOString(), next: next.toISOString() }, 'scheduled pipeline run submitted');
    jobs
      .runPipeline({ source: options.source })
      .catch(() => 1)
      .finally(() => {
        pending = false;
      });
  }, options.pollMs ?? 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * The configured sources in `matchcast start`: each polled on its period, on the server's
 * one-at-a-time job lane (a poll never runs beside an ingest or a pipeline run) and in its work child
 * process (parsing and re-prediction stay off the serving event loop); the matches a poll changed
 * are re-predicted and the published run is served at once.
 */
export function startEmbeddedSources(options: {
  ctx: RuntimeContext;
  jobs: ServerJobs;
  /** Wall-clock interval between checks for due sources, ms. Default `5000`. */
  checkMs?: number;
}): { stop(): void } {
  const { ctx, jobs } = options;
  const schedule = startSourceSchedule({
    deps: { db: ctx.db, store: ctx.store, log: ctx.log },
    run: async (name) => (await jobs.poll({ name, now: new Date().toISOString() })).outcome,
    checkMs: options.checkMs,
  });
  return { stop: () => void schedule.stop() };
}
