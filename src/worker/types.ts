import type { Queryable } from '../db/index.js';
import type { Probabilities, ServableStage } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { GoalsModel } from '../model/index.js';
import type { ModelVersion, Registry } from '../registry/index.js';
import type { ObjectStore } from '../storage/index.js';

/** A loaded model: one feature row in, three probabilities (home, draw, away) out. */
export type Predictor = (row: Record<string, unknown>) => Probabilities;

/** The part of the registry a worker reads. */
export type WorkerRegistry = Pick<Registry, 'modelName' | 'resolve' | 'aliases'>;

/** What the task handlers need; `createDefaultWorkerDeps` wires the real registry, model and features. */
export interface WorkerDeps {
  log: Logger;
  /** The database naming the published run and the registered versions. */
  db: Queryable;
  store: ObjectStore;
  registry: WorkerRegistry;
  /** The market-free fallback's registry (`<MODEL_NAME>-market-free`): its `champion` scores rows without odds. */
  fallbackRegistry: WorkerRegistry;
  /** Loads the artifact of `version` and returns its predictor (registry → deserialize → predictProba). */
  loadPredictor(version: ModelVersion): Promise<Predictor>;
  /** The goals model's registry (`<MODEL_NAME>-goals`): its `champion` answers `predict_markets`. */
  goalsRegistry: WorkerRegistry;
  /** Loads a goals version's artifact (registry → deserializeGoalsModel). */
  loadGoalsModel(version: ModelVersion): Promise<GoalsModel>;
  /** Parses `features/match_features.parquet` into rows by match id (held for as long as the run serves). */
  parseFeatures(body: Buffer): Promise<ReadonlyMap<number, Record<string, unknown>>>;
  /** Disposes what the deps opened (store connections). Optional. */
  close?(): Promise<void>;
}

/** A model a worker holds for a stage (`P`: what its artifact loads into; the 1X2 predictor by default). */
export interface LoadedModel<P = Predictor> {
  stage: ServableStage;
  version: ModelVersion;
  predict: P;
  /** Unix seconds. */
  loadedAt: number;
}
