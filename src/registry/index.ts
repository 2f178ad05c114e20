export * from './keys.js';
export * from './model-registry.js';
export * from './promotion.js';
export * from './run-id.js';
export * from './timestamps.js';
export * from './types.js';
