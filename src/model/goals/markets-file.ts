import type { ParquetColumn } from '../../storage/index.js';

/** Column contract of `predictions/markets.parquet` (KEYS.markets): one row per match. */
export const MARKETS_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'expected_home_goals', type: 'double' },
  { name: 'expected_away_goals', type: 'double' },
  { name: 'rho', type: 'double' },
  { name: 'model_stage', type: 'string' },
  { name: 'model_run_id', type: 'string' },
  { name: 'training_cutoff', type: 'timestamp' },
  { name: 'odd_over25', type: 'double' },
  { name: 'odd_under25', type: 'double' },
  { name: 'odd_btts_yes', type: 'double' },
  { name: 'odd_btts_no', type: 'double' },
];

/** One row of the markets file: the score matrix's parameters; every market follows from them. */
export interface MarketsRow {
  match_id: number;
  expected_home_goals: number;
  expected_away_goals: number;
  rho: number;
  /** `champion` (the registered goals version) or `backtest` (an out-of-sample walk-forward fold). */
  model_stage: 'champion' | 'backtest';
  model_run_id: string;
  training_cutoff: Date;
  /** The prices a user sees (closing when known, else opening); null when unknown. For edges on cards. */
  odd_over25: number | null;
  odd_under25: number | null;
  odd_btts_yes: number | null;
  odd_btts_no: number | null;
}
