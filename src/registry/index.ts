// The model registry (versions and aliases in the database, model files in the object store) and the
// promotion rule. Storage keys stay internal (tests import keys.ts).
export {
  appendAliasEvent,
  createRegistry,
  ModelRegistry,
  type NewVersion,
  newRunId,
  type Registry,
} from './model-registry.js';
export { decidePromotion, type LineCheck, lineCheckOf, type PromotionComparison } from './promotion.js';
export type { AliasEvent, FeaturesArtifactRef, ModelVersion } from './types.js';
