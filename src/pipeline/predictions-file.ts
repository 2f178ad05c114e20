import { type Match, OUTCOME_LABELS, predictedClass } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import type { ParquetColumn } from '../storage/index.js';

/** Column contract of `predictions/predictions.parquet` (docs/pipeline.md, spec §2.1/§2.2). */
export const PREDICTION_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'home_team_name', type: 'string' },
  { name: 'away_team_name', type: 'string' },
  { name: 'start_time_utc', type: 'timestamp' },
  { name: 'region_id', type: 'int32' },
  { name: 'region_name', type: 'string' },
  { name: 'tournament_name', type: 'string' },
  { name: 'season', type: 'string' },
  { name: 'proba_home', type: 'double' },
  { name: 'proba_draw', type: 'double' },
  { name: 'proba_away', type: 'double' },
  { name: 'predicted_class', type: 'int32' },
  { name: 'predicted_label', type: 'string' },
  { name: 'is_future', type: 'boolean' },
  { name: 'model_stage', type: 'string' },
  { name: 'model_run_id', type: 'string' },
  { name: 'predictions_computed_at', type: 'timestamp' },
  { name: 'home_score', type: 'int32' },
  { name: 'away_score', type: 'int32' },
  // Additive: when the odds behind the row's market features were observed; null = none.
  { name: 'odds_observed_at', type: 'timestamp' },
];

export interface PredictionRow {
  match_id: number;
  home_team_name: string;
  away_team_name: string;
  start_time_utc: Date;
  region_id: number;
  region_name: string;
  tournament_name: string;
  season: string;
  proba_home: number;
  proba_draw: number;
  proba_away: number;
  predicted_class: number;
  predicted_label: string;
  is_future: boolean;
  /** `fallback`: the market-free model scored a match that had no odds by its prediction time. */
  model_stage: 'champion' | 'backtest' | 'fallback';
  model_run_id: string;
  predictions_computed_at: Date;
  /** Null unless the match finished before the as-of instant. */
  home_score: number | null;
  away_score: number | null;
  /** When the odds behind the market features were observed (null: no odds; absent in older files). */
  odds_observed_at?: Date | null;
}

/** Column contract of `predictions/backtest.parquet`. */
export const BACKTEST_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'proba_home', type: 'double' },
  { name: 'proba_draw', type: 'double' },
  { name: 'proba_away', type: 'double' },
  { name: 'model_run_id', type: 'string' },
  { name: 'training_cutoff', type: 'timestamp' },
  // Additive: the same recipe walked forward at the kick-off horizon (latest odds before kick-off),
  // kept per match so an export can recompute the kick-off figures; null in the fallback's file.
  { name: 'kickoff_proba_home', type: 'double' },
  { name: 'kickoff_proba_draw', type: 'double' },
  { name: 'kickoff_proba_away', type: 'double' },
  { name: 'kickoff_model_run_id', type: 'string' },
  { name: 'kickoff_training_cutoff', type: 'timestamp' },
  { name: 'kickoff_prediction_time', type: 'timestamp' },
  { name: 'kickoff_odds_observed_at', type: 'timestamp' },
];

/** One row of the backtest file: an out-of-sample prediction of one walk-forward fold. */
export interface BacktestRow {
  match_id: number;
  proba_home: number;
  proba_draw: number;
  proba_away: number;
  model_run_id: string;
  training_cutoff: Date;
  /** The kick-off horizon's prediction of the same match (absent: not walked forward at kick-off). */
  kickoff_proba_home?: number | null;
  kickoff_proba_draw?: number | null;
  kickoff_proba_away?: number | null;
  kickoff_model_run_id?: string | null;
  kickoff_training_cutoff?: Date | null;
  kickoff_prediction_time?: Date | null;
  kickoff_odds_observed_at?: Date | null;
}

/** The prediction row of match `m`, for predict and re-predict: the result only if finished before as-of. */
export function predictionRowOf(
  m: Match,
  proba: readonly [number, number, number],
  at: {
    asOfMs: number;
    stage: PredictionRow['model_stage'];
    runId: string;
    computedAt: Date;
    featureRow: FeatureRow;
  },
): PredictionRow {
  const result = resultOf(m, at.asOfMs);
  const cls = predictedClass([proba[0], proba[1], proba[2]]);
  return {
    match_id: m.id,
    home_team_name: m.homeTeamName,
    away_team_name: m.awayTeamName,
    start_time_utc: m.startTimeUtc,
    region_id: m.regionId,
    region_name: m.regionName,
    tournament_name: m.tournamentName,
    season: m.season,
    proba_home: proba[0],
    proba_draw: proba[1],
    proba_away: proba[2],
    predicted_class: cls,
    predicted_label: OUTCOME_LABELS[cls],
    is_future: result.is_future,
    model_stage: at.stage,
    model_run_id: at.runId,
    predictions_computed_at: at.computedAt,
    home_score: result.home_score,
    away_score: result.away_score,
    odds_observed_at: at.featureRow.odds_observed_at ?? null,
  };
}

/** The result columns of match `m` as of `asOfMs`: its score only if it finished before. */
export function resultOf(
  m: Match,
  asOfMs: number,
): Pick<PredictionRow, 'home_score' | 'away_score' | 'is_future'> {
  const start = m.startTimeUtc.getTime();
  const finished = m.status === 'finished' && start < asOfMs && m.homeScore !== null && m.awayScore !== null;
  return {
    home_score: finished ? m.homeScore : null,
    away_score: finished ? m.awayScore : null,
    is_future: start >= asOfMs,
  };
}
