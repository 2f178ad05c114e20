import { DAY_MS, RESULT_LAG_MS } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';

/**
 * When the last result before `asOf` became known (kick-off + RESULT_LAG_MS, at most `asOf`), else `asOf`:
 * windows end here so that a data set that stops in the past still validates on its last year.
 */
export function resultsEnd(rows: readonly FeatureRow[], asOf: Date): Date {
  const asOfMs = asOf.getTime();
  let last = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    const t = r.start_time_utc.getTime();
    if (r.label !== null && t < asOfMs && t > last) last = t;
  }
  return Number.isFinite(last) ? new Date(Math.min(asOfMs, last + RESULT_LAG_MS)) : asOf;
}

/** A walk-forward's first refit, end (exclusive) of its prediction times and days between refits. */
export interface WalkForwardOptions {
  from?: Date;
  to?: Date;
  refitDays?: number;
}

/** Where a walk-forward runs unless told: the two years before `end` up to `asOf`, a refit every 90 days. */
export function walkForwardWindow(
  end: Date | number,
  asOf: Date,
  options: WalkForwardOptions,
): Required<WalkForwardOptions> {
  return {
    from: options.from ?? new Date(Number(end) - 730 * DAY_MS),
    to: options.to ?? asOf,
    refitDays: options.refitDays ?? 90,
  };
}
