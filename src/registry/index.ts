// The model registry: versions and aliases (champion, challenger) in the object store, and the
// promotion rule. Storage keys stay internal (tests import keys.ts).
export {
  appendAliasEvent,
  createRegistry,
  ModelRegistry,
  type NewVersion,
  newRunId,
  type Registry,
} from './model-registry.js';
export {
  type ChampionVerdict,
  decidePromotion,
  type LineCheck,
  lineCheckOf,
  type OpeningVerdict,
  type PromotionComparison,
} from './promotion.js';
export type { AliasEvent, FeaturesArtifactRef, ModelVersion } from './types.js';
