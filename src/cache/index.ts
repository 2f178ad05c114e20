export * from './prediction-cache.js';
