import type { Stage } from '../domain/index.js';
import type { ModelInfo } from '../schemas/index.js';

/**
 * One registered model version (spec §2.7): `ModelInfo` without the alias. `created_at` is UTC without a
 * zone, `metrics` the out-of-sample ones (log_loss, roc_auc_ovr, brier, rps, accuracy, market_* for the odds).
 */
export interface ModelVersion extends Omit<ModelInfo, 'stage'> {
  /** `models/<run_id>/model.json` */
  artifact_uri: string;
  /** Matches that kicked off before this instant (ISO 8601 UTC) were the training data. */
  training_cutoff: string;
  /** `featureFingerprint()` of its features: workers score it only with the same (absent: older versions). */
  feature_fingerprint?: string;
  /** The features artifact (pipeline run and object) it was trained and validated on. */
  features_artifact?: FeaturesArtifactRef;
  /** SHA-256 (hex) of the model file, recorded at registration; every load checks it. */
  artifact_sha256?: string;
  artifact_size?: number;
  /** Set when the pipeline run that registered the version died: hidden from listings, never aliased. */
  status?: 'failed';
}

/** Which features file a version was trained on. */
export interface FeaturesArtifactRef {
  /** The pipeline run that wrote the features (null for a store from before runs). */
  run_id: string | null;
  bucket: string;
  key: string;
  etag: string | null;
}

/** One alias move in the append-only history. */
export interface AliasEvent {
  seq: number;
  at: string;
  actor: string;
  alias: Stage;
  from_version: string | null;
  to_version: string | null;
  reason?: string;
}

/** A walk-forward fold, served before the champion's cut-off: every served run id is a version's or one. */
export type RegistryRun = Pick<
  ModelVersion,
  'run_id' | 'created_at' | 'training_cutoff' | 'params' | 'feature_names'
> & {
  kind: 'backtest-fold';
  /** The version whose recipe (family, params, feature names) the fold refit, null when none. */
  recipe_version: string | null;
  pipeline_run_id: string | null;
  /** The fold's serialised model (`serializeModel`), so its served rows can be explained; absent on older runs. */
  model?: string;
};
