import { CronExpressionParser } from 'cron-parser';
import { MatchcastError } from '../domain/index.js';

/** A parsed `PIPELINE_SCHEDULE`: a cron pattern (UTC) or a fixed interval. */
export type PipelineSchedule = { kind: 'cron'; pattern: string } | { kind: 'every'; ms: number };

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses `PIPELINE_SCHEDULE` (`30 4 * * *` or `every 15m`); throws MC_ERR_CONFIG naming the setting. */
export function parseSchedule(spec: string): PipelineSchedule {
  const every = /^every\s+(\d+)\s*([smhd])$/i.exec(spec.trim());
  if (every) {
    const ms = Number(every[1]) * UNIT_MS[every[2]!.toLowerCase() as keyof typeof UNIT_MS];
    if (ms < 1000)
      throw new MatchcastError('MC_ERR_CONFIG', 'Invalid setting PIPELINE_SCHEDULE: interval below 1 s');
    return { kind: 'every', ms };
  }
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
