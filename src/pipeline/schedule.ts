import { CronExpressionParser } from 'cron-parser';
import { everyIntervalMs } from '../config.js';
import { MatchcastError } from '../domain/index.js';

/** A parsed `PIPELINE_SCHEDULE`: a cron pattern (UTC) or a fixed interval. */
export type PipelineSchedule = { kind: 'cron'; pattern: string } | { kind: 'every'; ms: number };

/**
 * Parses `PIPELINE_SCHEDULE` (`30 4 * * *` or `every 15m`, 1 s..366 d) or throws MC_ERR_CONFIG. An unbounded
 * interval would overflow the date of its next firing, which then fires at once.
 */
export function parseSchedule(spec: string): PipelineSchedule {
  const every = everyIntervalMs(spec);
  if (typeof every === 'string')
    throw new MatchcastError('MC_ERR_CONFIG', `Invalid setting PIPELINE_SCHEDULE: ${every}`);
  if (every !== null) return { kind: 'every', ms: every };
  try {
    CronExpressionParser.parse(spec, { tz: 'UTC' });
  } catch (err) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      `Invalid setting PIPELINE_SCHEDULE: "${spec}" is not a cron pattern (${(err as Error).message})`,
    );
  }
  return { kind: 'cron', pattern: spec.trim() };
}

/** The first firing strictly after `after`. */
export function nextRun(schedule: PipelineSchedule, after: Date): Date {
  if (schedule.kind === 'every') return new Date(after.getTime() + schedule.ms);
  return CronExpressionParser.parse(schedule.pattern, { currentDate: after, tz: 'UTC' }).next().toDate();
}
