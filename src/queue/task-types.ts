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
