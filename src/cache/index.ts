export * from './create-prediction-cache.js';
export * from './memory-cache.js';
export * from './prediction-cache.js';
export * from './redis-cache.js';
