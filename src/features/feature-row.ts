import { type Outcome, RESULT_LAG_MS, rowShape } from '../domain/index.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';

export interface FeatureRowMeta {
  match_id: number;
  start_time_utc: Date;
  region_id: number;
  season: string;
  home_team_name: string;
  away_team_name: string;
  /** Outcome of a match finished before `as_of`; null for future, unfinished or after-as-of matches. */
  label: Outcome | null;
  /** Kick-off at or after `as_of`. */
  is_future: boolean;
  as_of: Date;
  /** The instant the match is predicted at: its market columns use only odds observed by then. */
  prediction_time?: Date | null;
  /** When the 1X2 observation behind `mkt_*` was made; null when the match had none by then. */
  odds_observed_at?: Date | null;
}

/** The instant (ms) the row is predicted at: `prediction_time`, or kick-off for rows built without it. */
export function predictionTimeOf(row: FeatureRowMeta): number {
  return (row.prediction_time ?? row.start_time_utc).getTime();
}

/** Whether the row's label existed at `t` (ms): a finished match whose result was known by then. */
export function labelKnownBy(row: FeatureRowMeta, t: number): boolean {
  return row.label !== null && row.start_time_utc.getTime() + RESULT_LAG_MS <= t;
}

/** One match's point-in-time features: the meta columns plus every {@link FeatureName} (null = missing). */
export type FeatureRow = FeatureRowMeta & Record<FeatureName, number | null>;

/** How a column of the features file becomes a value of a row (as `featureRowsFromParquet` reads it). */
export type ColumnKind = 'num' | 'numOrNull' | 'feature' | 'str' | 'bool' | 'date' | 'dateOrNull';

const META_KINDS: Record<keyof FeatureRowMeta, ColumnKind> = {
  match_id: 'num',
  start_time_utc: 'date',
  region_id: 'num',
  season: 'str',
  home_team_name: 'str',
  away_team_name: 'str',
  label: 'numOrNull',
  is_future: 'bool',
  as_of: 'date',
  prediction_time: 'dateOrNull',
  odds_observed_at: 'dateOrNull',
};

/** Every column of a feature row in row order, with its kind. */
export const COLUMN_KINDS: ReadonlyArray<readonly [string, ColumnKind]> = [
  ...Object.entries(META_KINDS),
  ...FEATURE_NAMES.map((name) => [name, 'feature'] as const),
];

/** A row with every column present and null, to be filled in (one compact shape: see `rowShape`). */
export const emptyFeatureRow: () => Record<string, unknown> = rowShape(COLUMN_KINDS.map(([name]) => name));

/** THE conversion of a feature row to a model input: missing values (null, non-finite) become NaN. */
export function toModelInput(
  row: FeatureRow | Record<string, unknown>,
  featureNames: readonly string[],
): Float64Array {
  const out = new Float64Array(featureNames.length);
  const r = row as Record<string, unknown>;
  for (let j = 0; j < featureNames.length; j++) {
    const v = r[featureNames[j]];
    out[j] = typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
  }
  return out;
}
