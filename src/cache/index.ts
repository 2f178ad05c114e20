// The prediction cache: the port and its factory (memory or Redis, from the settings).
export { createPredictionCache } from './create-prediction-cache.js';
export { type PredictionCache, predictionCacheKey } from './prediction-cache.js';
