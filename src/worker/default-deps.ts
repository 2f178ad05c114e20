import type { Config } from '../config.js';
import { featureRowsFromParquet, toModelInput } from '../features/index.js';
import type { Logger } from '../logger.js';
import { deserializeModel, predictProba } from '../model/index.js';
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
  return {
    log,
    store: objectStore,
    registry,
    async loadPredictor(version: ModelVersion): Promise<Predictor> {
      const artifact = await registry.loadArtifact(version);
      const model = deserializeModel(artifact.toString('utf8'));
      const names = version.feature_names;
      return (row) => predictProba(model, toModelInput(row, names));
    },
    parseFeatures: async (body) =>
      (await featureRowsFromParquet(body)) as unknown as Record<string, unknown>[],
    close: store ? undefined : () => objectStore.close(),
  };
}
