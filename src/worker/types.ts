import type { Probabilities, ServableStage, Stage } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { ModelVersion } from '../registry/index.js';
import type { ObjectStore } from '../storage/index.js';

/** A loaded model: one feature row in, three probabilities (home, draw, away) out. */
export type Predictor = (row: Record<string, unknown>) => Probabilities;

/** The part of the registry a worker reads. */
export interface WorkerRegistry {
  readonly modelName: string;
  resolve(stage: Stage): Promise<ModelVersion | null>;
  aliases(): Promise<Partial<Record<Stage, string>>>;
}

/** What the task handlers need; `createDefaultWorkerDeps` wires the real registry, model and features. */
export interface WorkerDeps {
  log: Logger;
  store: ObjectStore;
  registry: WorkerRegistry;
  /** Loads the artifact of `version` and returns its predictor (registry → deserialize → predictProba). */
  loadPredictor(version: ModelVersion): Promise<Predictor>;
  /** Parses `features/match_features.parquet`. */
  parseFeatures(body: Buffer): Promise<Record<string, unknown>[]>;
  /** Disposes what the deps opened (store connections). Optional. */
  close?(): Promise<void>;
}

/** Options of the handlers. */
export interface WorkerRuntimeOptions {
  /** How often an alias is re-resolved, ms (config.aliasRefreshMs). Default `3000`. */
  aliasRefreshMs?: number;
  /** How often the features file's etag is checked, ms (config.viewRefreshMs). Default `5000`. */
  featuresRefreshMs?: number;
}

/** A model a worker holds for a stage. */
export interface LoadedModel {
  stage: ServableStage;
  version: ModelVersion;
  predict: Predictor;
  /** Unix seconds. */
  loadedAt: number;
}
