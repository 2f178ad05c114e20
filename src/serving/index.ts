export * from './body-encoder.js';
export * from './cards.js';
export * from './encoded-body.js';
export * from './odds.js';
export * from './predictions.js';
export * from './region-roi.js';
export * from './types.js';
export { ArtifactInvalidError } from './validate.js';
export { createServingViews, type ServedArtifact, type ServingViewsOptions } from './views.js';
