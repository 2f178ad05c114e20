import type { Config } from '../config.js';
import { featureRowsFromParquet, toModelInput } from '../features/index.js';
import type { Logger } from '../logger.js';
import { deserializeGoalsModel, deserializeModel, predictProba } from '../model/index.js';
import { createRegistry, type ModelVersion } from '../registry/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import type { Predictor, WorkerDeps } from './types.js';

/**
 * The real worker dependencies: the object store of `config`, the registry on it, and the model and
 * feature code the offline pipeline uses (the same `toModelInput` as training and batch predict).
 */
export function createDefaultWorkerDeps(config: Config, log: Logger, store?: ObjectStore): WorkerDeps {
  const objectStore = store ?? createObjectStore(config, log);
  const registry = createRegistry(objectStore, config);
  // The pipeline's fallback stage registers under this name (pipeline/stage-fallback.ts fallbackModelName).
  const fallbackRegistry = createRegistry(objectStore, { modelName: `${config.modelName}-market-free` });
  // The goals stage registers under this name (pipeline/stage-goals.ts goalsModelName).
  const goalsRegistry = createRegistry(objectStore, { modelName: `${config.modelName}-goals` });
  return {
    log,
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
    parseFeatures: async (body) =>
      (await featureRowsFromParquet(body)) as unknown as Record<string, unknown>[],
    close: store ? undefined : () => objectStore.close(),
  };
}
