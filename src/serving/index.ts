// Serving: the loaded views of the published artifacts (predictions, odds, ROI, markets) and their
// pre-encoded response bodies. Other folders use the views through createServingViews and the
// encoding helpers below; parsers and card builders stay internal (tests import their files).
export { identityStream, negotiateEncoding, notModified } from './encoded-body.js';
export type { EncodedBody } from './types.js';
export { createServingViews, type ServingViewsOptions, type Views } from './views.js';
