// Point-in-time feature rows; the feature groups and their seam stay inside.
export {
  buildFeatureRows,
  earlyPredictionTime,
  type FeatureCheckpoint,
  type FeatureOptions,
  type FeatureResume,
} from './build-feature-rows.js';
export { FeatureColumns } from './feature-columns.js';
export type { FeatureHorizon } from './feature-group.js';
export {
  FEATURE_GROUP_NAMES,
  FEATURE_NAMES,
  featureGroupOf,
  hasNoOdds,
  MARKET_FREE_FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
} from './feature-names.js';
export { type FeatureRow, labelKnownBy, predictionTimeOf, toModelInput } from './feature-row.js';
export { featureFingerprint } from './fingerprint.js';
export { impliedMeans, MATRIX_SIZE, poissonPmf } from './implied-means.js';
export { demargin, demarginPrices, twoWay } from './market.js';
export { DEFAULT_MARKET_RATING, supremacy } from './market-ratings.js';
export { featureRowsFromParquet, featureRowsToParquet } from './parquet.js';
