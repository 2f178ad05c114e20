export {
  buildFeatureRows,
  earlyPredictionTime,
  type FeatureCheckpoint,
  type FeatureOptions,
  type FeatureResume,
} from './build-feature-rows.js';
export type { FeatureHorizon } from './feature-group.js';
export {
  type FeatureGroup,
  type FeatureSettings,
  featureGroup,
  type MatchContext,
  type ResultContext,
  resolveFeatureOptions,
} from './feature-group.js';
export {
  BASELINE_FEATURE_NAMES,
  FEATURE_NAMES,
  type FeatureName,
  GOALS_MARKET_FEATURE_NAMES,
  hasNoOdds,
  MARKET_FREE_FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
} from './feature-names.js';
export { type FeatureRow, type FeatureRowMeta, toModelInput } from './feature-row.js';
export {
  FEATURE_DEFINITION_VERSION,
  featureDefinition,
  featureFingerprint,
  fingerprintOf,
} from './fingerprint.js';
export { FEATURE_GROUPS } from './groups/index.js';
export { type DemarginMethod, demargin, demarginPrices, overround } from './market.js';
export { DEFAULT_MARKET_RATING, type MarketRatingParams, supremacy } from './market-ratings.js';
export { FEATURE_PARQUET_COLUMNS, featureRowsFromParquet, featureRowsToParquet } from './parquet.js';
export { DEFAULT_ELO, DEFAULT_PI, type EloParams, type PiParams } from './ratings.js';
