import type { Clock } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { nextRun, type PipelineSchedule } from '../pipeline/index.js';
import type { ServerJobs } from './server-jobs.js';

/**
 * `PIPELINE_SCHEDULE` in `matchcast start`: a `pipeline run` (of `source` when set) at each firing on
 * the service clock; a firing while the previous run is still going is skipped, so runs never pile up.
 */
export function startEmbeddedSchedule(
  jobs: ServerJobs,
  schedule: PipelineSchedule,
  clock: Clock,
  source: string | undefined,
  log: Logger,
): () => void {
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
      .runPipeline(source)
      .catch(() => 1)
      .finally(() => {
        pending = false;
      });
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
