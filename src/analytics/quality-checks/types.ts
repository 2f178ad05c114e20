import type { Match, OddsRecord } from '../../domain/index.js';
import type { ValueRow } from '../drift.js';

/** Limits of the data-quality checks; see docs/analytics.md. */
export const DEFAULT_QUALITY_LIMITS = {
  /** A decimal odd below this is impossible (a bet returning less than 1 % profit at best). */
  minOdd: 1.01,
  /** Plausible range of the 1X2 overround `Σ 1/odd − 1`. */
  overround: [0, 0.3] as readonly [number, number],
  /** Newest finished match older than this many days before as-of = stale data. */
  staleAfterDays: 21,
  /** A share of missing values above this in a column is a warning. */
  maxMissingShare: 0.2,
  /** Goals outside 0 … this are out of range. */
  maxGoals: 20,
  /** Examples listed per check. */
  maxExamples: 20,
};

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface MissingColumn {
  source: string;
  column: string;
  missing: number;
  total: number;
  share: number;
}

export interface DataQualityInput {
  asOf: Date;
  matches: readonly Match[];
  odds: readonly OddsRecord[];
  /** Rows of the features parquet (match_id, start_time_utc, feature columns). */
  featureRows: readonly ValueRow[];
  featureNames: readonly string[];
  /** Reference rows whose per-feature [min, max] define the in-range interval; default featureRows. */
  referenceRows?: readonly ValueRow[];
  /** Current-window rows checked against that interval; default featureRows. */
  currentRows?: readonly ValueRow[];
  /** Impossible odds of matches from here on fail; older ones (already trained on) only warn. Default: all fail. */
  windowStart?: Date;
  /** Rows of predictions.parquet, when present. */
  predictionRows?: readonly ValueRow[];
  now?: Date;
}

/** A check's verdict, as it appears in the report beside its id and title. */
export interface CheckResult {
  status: CheckStatus;
  /** Offending items of the `total` examined. */
  count: number;
  total: number;
  detail: string;
  example_header: string[];
  examples: string[][];
  /** Example rows left out of `examples` (at most `maxExamples` are kept). */
  omitted: number;
}

/** What every check sees: the input, the resolved limits and the per-column missing-value table. */
export interface QualityContext extends DataQualityInput {
  limits: typeof DEFAULT_QUALITY_LIMITS;
  missing: readonly MissingColumn[];
}

/** One data-quality check (see `QUALITY_CHECKS` in index.ts for how to add one). */
export interface QualityCheckDef {
  /** Stable id in the report JSON. */
  readonly id: string;
  readonly title: string;
  run(ctx: QualityContext): CheckResult;
}

export function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

export function iso(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

/** A check that lists offending items: `failStatus` when any, examples cut to `maxExamples`. */
export function listed(
  count: number,
  total: number,
  detail: string,
  header: string[],
  examples: string[][],
  failStatus: CheckStatus = 'fail',
): CheckResult {
  const max = DEFAULT_QUALITY_LIMITS.maxExamples;
  return {
    status: count > 0 ? failStatus : 'ok',
    count,
    total,
    detail,
    example_header: header,
    examples: examples.slice(0, max),
    omitted: Math.max(0, examples.length - max),
  };
}
