export * from './buckets.js';
export * from './errors.js';
export * from './match.js';
export * from './outcome.js';
export * from './stage.js';
