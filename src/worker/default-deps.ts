import type { Config } from '../config.js';
import { type Database, openDatabase } from '../db/index.js';
import { FeatureColumns, toModelInput } from '../features/index.js';
import type { Logger } from '../logger.js';
import { deserializeGoalsModel, deserializeModel, predictProba } from '../model/index.js';
import { createRegistry, type ModelVersion } from '../registry/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import type { Predictor, WorkerDeps } from './types.js';

/** The real worker dependencies (`shared`: a process's own db and store), with training's `toModelInput`. */

export async function createDefaultWorkerDeps(
  config: Config,
  log: Logger,
  shared?: { db: Database; store: ObjectStore },
): Promise<WorkerDeps> {
  const objectStore = shared?.store ?? createObjectStore(config, log);
  let db: Database;
  try {
    db = shared?.db ?? (await openDatabase(config, { maxConnections: 4 }));
  } catch (err) {
    if (!shared) await objectStore.close();
    throw err;
  }
  const backends = { db, store: objectStore };
  const registry = createRegistry(backends, config);
  // The pipeline's fallback stage registers under this name (pipeline/stage-fallback.ts fallbackModelName).
  const fallbackRegistry = createRegistry(backends, { modelName: `${config.modelName}-market-free` });
  // The goals stage registers under this name (pipeline/stage-goals.ts goalsModelName).
  const goalsRegistry = createRegistry(backends, { modelName: `${config.modelName}-goals` });
  return {
    log,
    db,
    store: objectStore,
    registry,
    fallbackRegistry,
    goalsRegistry,
    async loadGoalsModel(version: ModelVersion) {
      return deserializeGoalsModel(await goalsRegistry.loadArtifact(version));
    },
    async loadPredictor(version: ModelVersion): Promise<Predictor> {
      const artifact = await (version.model_name === fallbackRegistry.modelName
        ? fallbackRegistry
        : registry
      ).loadArtifact(version);
      const model = deserializeModel(artifact.toString('utf8'));
      const names = version.feature_names;
      return (row) => predictProba(model, toModelInput(row, names));
    },
    // Column by column: a run's feature rows as objects are ~150 MB at 37k matches, as columns ~20 MB.
    parseFeatures: (body) => FeatureColumns.fromParquet(body),
    close: shared
      ? undefined
      : async () => void (await Promise.allSettled([objectStore.close(), db.close()])),
  };
}
