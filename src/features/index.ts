export { buildFeatureRows, type FeatureOptions } from './build-feature-rows.js';
export {
  BASELINE_FEATURE_NAMES,
  FEATURE_NAMES,
  type FeatureName,
  MODEL_FEATURE_NAMES,
} from './feature-names.js';
export { type FeatureRow, type FeatureRowMeta, toModelInput } from './feature-row.js';
export { type DemarginMethod, demargin, overround } from './market.js';
export { DEFAULT_MARKET_RATING, type MarketRatingParams, supremacy } from './market-ratings.js';
export { FEATURE_PARQUET_COLUMNS, featureRowsFromParquet, featureRowsToParquet } from './parquet.js';
export { DEFAULT_ELO, DEFAULT_PI, type EloParams, type PiParams } from './ratings.js';
