import type { AdminJob } from '../api/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { nextRun, type PipelineSchedule } from '../pipeline/index.js';
import type { ServerJobs } from './server-jobs.js';

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
