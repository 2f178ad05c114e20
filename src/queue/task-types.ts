import type { ServableStage } from '../domain/index.js';

/**
 * Model metadata a worker attaches to every result, so that the API process can feed the
 * `model_info`, `model_registered_at_seconds` and `inference_duration_seconds` metrics.
 */
export interface WorkerModelMeta {
  model_name: string;
  version: string;
  stage: ServableStage;
  run_id: string;
  /** Unix time (seconds) at which the worker loaded this version. */
  loaded_at: number;
}

/** What `predict_match` returns: spec §2.3 (without `cached`) plus worker-side fields. */
export interface PredictMatchResult {
  match_id: number;
  predicted_class: 0 | 1 | 2;
  probabilities: { home_win: number; draw: number; away_win: number };
  /** `<stage>/v<version>`, e.g. `champion/v3`: carries the stage name (spec §2.3) and the registry version. */
  model_version: string;
  model_stage: ServableStage;
  model_run_id: string;
  /** Time spent in the model (feature vector → probabilities), ms. */
  inference_ms: number;
  model: WorkerModelMeta;
  /**
   * `model`: the stage's model scored the match (it kicked off at or after the model's training
   * cut-off); `walk_forward_backtest`: the match is older, so the answer is the out-of-sample row of
   * the served run's walk-forward backtest (`model_run_id` is then the fold's run).
   */
  prediction_source?: 'model' | 'walk_forward_backtest' | 'market_free_fallback';
  /**
   * Set with `market_free_fallback` (the match has no odds): the run id of the stage's own
   * model, which the answer did NOT come from — the API checks it against the alias it resolved.
   */
  stage_run_id?: string;
  /** The training cut-off of the model behind the answer (fold or version), ISO 8601 UTC. */
  training_cutoff?: string;
  /** The published pipeline run whose features (and backtest) the worker used; null before any run. */
  features_run_id?: string | null;
}

/**
 * What `predict_markets` returns: the `GET /predict/markets/{match_id}` body of the goals
 * champion (or of the served run's walk-forward row for an older match) plus the live fields.
 */
export interface PredictMarketsResult {
  /** The markets body, shape `MatchMarkets` (src/schemas/markets.ts), without the score matrix. */
  markets: Record<string, unknown> & { match_id: number; model_stage: string; model_run_id: string };
  /** `goals/v<version>` of the goals champion behind the answer. */
  model_version: string;
  /** Run id of the goals champion the worker holds (the cache checks it against the alias). */
  goals_run_id: string;
  /** `model`: the goals champion scored the match; `walk_forward_backtest`: the served run's out-of-sample row. */
  prediction_source: 'model' | 'walk_forward_backtest';
  /** The instant the match is predicted at: its own prices are those observed by then (ISO 8601 UTC). */
  prediction_time: string | null;
  /** Time spent computing the means and markets, ms. */
  inference_ms: number;
  /** The published run whose features, odds and markets the worker used; null before any run. */
  features_run_id: string | null;
}

/** What `model_info` returns: spec §2.7 plus the worker's load metadata. */
export interface ModelInfoResult {
  model_name: string;
  stage: ServableStage;
  version: string;
  run_id: string;
  metrics: Record<string, number>;
  params: Record<string, string>;
  feature_names: string[];
  created_at: string;
  model: WorkerModelMeta;
}

/** The `result` of a FAILURE task status. */
export interface TaskFailure {
  error: string;
  code: string;
}
