import type { ServableStage } from '../domain/index.js';
import type { LivePrediction, ModelInfo } from '../schemas/index.js';

/** On every result: feeds `model_info`, `model_registered_at_seconds`, `inference_duration_seconds`. */
export interface WorkerModelMeta {
  model_name: string;
  version: string;
  stage: ServableStage;
  run_id: string;
  /** Unix time (seconds) at which the worker loaded this version. */
  loaded_at: number;
}

/** What `predict_match` returns: spec §2.3 (without `cached`) plus worker-side fields. */
export type PredictMatchResult = Omit<LivePrediction, 'cached' | 'model_stage'> & {
  model_stage: ServableStage;
  /** Time spent in the model (feature vector → probabilities), ms. */
  inference_ms: number;
  model: WorkerModelMeta;
  /** With `market_free_fallback`: the run id of the stage's own model (not the answer's), for the API. */
  stage_run_id?: string;
  /** The published pipeline run whose features (and backtest) the worker used; null before any run. */
  features_run_id?: string | null;
};

/** What `predict_markets` returns: the goals champion's (or walk-forward row's) markets, and live fields. */
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
export type ModelInfoResult = Omit<ModelInfo, 'stage'> & { stage: ServableStage; model: WorkerModelMeta };

/** The `result` of a FAILURE task status. */
export interface TaskFailure {
  error: string;
  code: string;
}
