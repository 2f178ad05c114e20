// The loaded views of the published artifacts and their pre-encoded bodies; parsers stay internal.
export { type EncodedBody, identityStream, negotiateEncoding, notModified } from './encoded-body.js';
export { createServingViews, type ServingViewsOptions, type Views } from './views.js';
