import type { ParquetColumn } from '../storage/index.js';

type ParquetColumnType = ParquetColumn['type'];

/** One column of an analyst dataset: its Parquet type and what it holds (docs/analytics.md). */
export interface AnalystColumn {
  name: string;
  type: ParquetColumnType;
  doc: string;
}

/** A row of an analyst dataset: every column present, null when unknown. */
export type AnalystRow = Record<string, number | string | boolean | Date | null>;

const c = (name: string, type: ParquetColumnType, doc: string): AnalystColumn => ({ name, type, doc });

const MATCH: AnalystColumn[] = [
  c('match_id', 'int64', 'match id'),
  c('start_time_utc', 'timestamp', 'kick-off (UTC)'),
  c('region_id', 'int32', 'region id'),
  c('region_name', 'string', 'region name'),
  c('season', 'string', 'season label'),
  c('home_team_name', 'string', 'home side'),
  c('away_team_name', 'string', 'away side'),
  c('home_score', 'int32', 'final home goals; null unless finished'),
  c('away_score', 'int32', 'final away goals; null unless finished'),
  c('outcome', 'int32', '0 home win, 1 draw, 2 away win; null unless finished'),
];

const triple = (prefix: string, doc: string): AnalystColumn[] =>
  (['home', 'draw', 'away'] as const).map((o) => c(`${prefix}_${o}`, 'double', `${doc} (${o})`));

const LINES: AnalystColumn[] = [
  ...triple('open', 'opening decimal price'),
  c('open_observed_at', 'timestamp', 'when the opening prices were observed'),
  ...triple('open_fair', 'opening line de-margined (power) probability'),
  ...triple('close', 'closing decimal price'),
  c('close_observed_at', 'timestamp', 'when the closing prices were observed'),
  ...triple('close_fair', 'closing line de-margined (power) probability'),
];

/** `predictions`: the served prediction of every match and the prices it used, closing kept apart. */
export const PREDICTION_EXPORT_COLUMNS: readonly AnalystColumn[] = [
  ...MATCH,
  c('tournament_name', 'string', 'tournament'),
  ...triple('proba', 'served probability'),
  c('predicted_class', 'int32', 'most probable outcome'),
  c('model_stage', 'string', 'champion | backtest (walk-forward fold) | fallback (market-free model)'),
  c('model_run_id', 'string', 'model run that produced the probabilities'),
  c('predictions_computed_at', 'timestamp', 'when the prediction was computed'),
  c(
    'prediction_time',
    'timestamp',
    'the instant the match is predicted at: only odds observed by it were used',
  ),
  c('odds_observed_at', 'timestamp', 'when the 1X2 prices the prediction used were observed; null = none'),
  ...triple('used_price', 'decimal price the prediction used (observed at odds_observed_at)'),
  ...triple('used_fair', 'de-margined probability of the used prices (the model input)'),
  ...triple('used_edge', 'probability × used price − 1'),
  ...LINES,
];

/** `backtest`: one row per match of the walk-forward window with every out-of-sample view. */
export const BACKTEST_EXPORT_COLUMNS: readonly AnalystColumn[] = [
  ...MATCH,
  ...triple('early_proba', 'early-horizon walk-forward probability'),
  c('early_model_run_id', 'string', 'walk-forward fold run of the early prediction'),
  c('early_training_cutoff', 'timestamp', "the fold's model saw only matches before it"),
  c('early_prediction_time', 'timestamp', 'early horizon: kick-off − 48 h (odds observed by then)'),
  c('early_odds_observed_at', 'timestamp', 'observation time of the 1X2 prices the early model saw'),
  ...triple('early_price', 'decimal price the early model saw'),
  ...triple('early_fair', 'de-margined probability the early model saw'),
  ...triple('kickoff_proba', 'kick-off-horizon walk-forward probability'),
  c('kickoff_model_run_id', 'string', 'walk-forward fold run of the kick-off prediction'),
  c('kickoff_training_cutoff', 'timestamp', "the kick-off fold's training cut-off"),
  c('kickoff_prediction_time', 'timestamp', 'kick-off horizon: the latest odds before kick-off'),
  c('kickoff_odds_observed_at', 'timestamp', 'observation time of the 1X2 prices the kick-off model saw'),
  ...triple('fallback_proba', 'market-free fallback walk-forward probability'),
  c('fallback_model_run_id', 'string', 'walk-forward fold run of the fallback'),
  c('fallback_training_cutoff', 'timestamp', "the fallback fold's training cut-off"),
  c('fallback_prediction_time', 'timestamp', 'the fallback sees no odds; predicted at the early horizon'),
  ...LINES,
  c('goals_expected_home', 'double', 'goals model: expected home goals'),
  c('goals_expected_away', 'double', 'goals model: expected away goals'),
  c('goals_rho', 'double', 'goals model: Dixon–Coles ρ'),
  c('goals_proba_over25', 'double', 'goals model: P(over 2.5 goals)'),
  c('goals_proba_btts_yes', 'double', 'goals model: P(both teams score)'),
  c('goals_model_run_id', 'string', 'walk-forward fold run of the goals model'),
  c('goals_training_cutoff', 'timestamp', "the goals fold's training cut-off"),
  c('goals_prediction_time', 'timestamp', 'goals model horizon (the early one)'),
  c('early_over25', 'double', 'over 2.5 price observed by the early horizon'),
  c('early_under25', 'double', 'under 2.5 price observed by the early horizon'),
  c('early_ou25_observed_at', 'timestamp', 'when those O/U prices were observed'),
  c('early_btts_yes', 'double', 'BTTS yes price observed by the early horizon'),
  c('early_btts_no', 'double', 'BTTS no price observed by the early horizon'),
  c('early_btts_observed_at', 'timestamp', 'when those BTTS prices were observed'),
  c('open_over25', 'double', 'opening over 2.5 price'),
  c('open_under25', 'double', 'opening under 2.5 price'),
  c('open_fair_over25', 'double', 'opening O/U line de-margined P(over)'),
  c('close_over25', 'double', 'closing over 2.5 price'),
  c('close_under25', 'double', 'closing under 2.5 price'),
  c('close_fair_over25', 'double', 'closing O/U line de-margined P(over)'),
  c('open_btts_yes', 'double', 'opening BTTS yes price'),
  c('open_btts_no', 'double', 'opening BTTS no price'),
  c('open_fair_btts_yes', 'double', 'opening BTTS line de-margined P(yes)'),
  c('close_btts_yes', 'double', 'closing BTTS yes price'),
  c('close_btts_no', 'double', 'closing BTTS no price'),
  c('close_fair_btts_yes', 'double', 'closing BTTS line de-margined P(yes)'),
];

/** `bets`: every simulated bet of every strategy, staking plan and market. */
export const BET_EXPORT_COLUMNS: readonly AnalystColumn[] = [
  c('strategy', 'string', 'model (edge above EDGE_THRESHOLD) | favourite | always_first (home / over / yes)'),
  c('staking', 'string', 'flat (1 unit) | kelly (fractional Kelly, capped)'),
  c('market', 'string', '1x2 | ou25 | btts'),
  c('match_id', 'int64', 'match id'),
  c('start_time_utc', 'timestamp', 'kick-off (UTC)'),
  c('region_id', 'int32', 'region id'),
  c('region_name', 'string', 'region name'),
  c('season', 'string', 'season label'),
  c('selection', 'string', 'home | draw | away | over | under | yes | no'),
  c('probability', 'double', 'model probability of the selection'),
  c('model_run_id', 'string', 'walk-forward fold run behind the probability'),
  c('prediction_time', 'timestamp', 'when the bet is placed (the early horizon)'),
  c('price_taken', 'double', 'decimal price taken: the latest observed by prediction_time'),
  c('price_observed_at', 'timestamp', 'when that price was observed'),
  c('edge', 'double', 'probability × price_taken − 1'),
  c('stake', 'double', 'units staked'),
  c('won', 'boolean', 'the selection happened'),
  c('profit', 'double', 'stake × (price − 1) when won, −stake when lost'),
  c('close_price', 'double', 'closing decimal price of the selection'),
  c('close_fair_probability', 'double', 'closing line de-margined (power) probability of the selection'),
  c('clv', 'double', 'closing-line value: price_taken × close_fair_probability − 1'),
];
