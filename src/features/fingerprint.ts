import { createHash } from 'node:crypto';
import { resolveFeatureOptions } from './feature-group.js';
import { FEATURE_NAMES } from './feature-names.js';

/**
 * Bump with any change to how a feature column is computed: models trained before are then refused on
 * the new columns (MC_ERR_FEATURES_MISMATCH) until one trained on them is promoted.
 */
const FEATURE_DEFINITION_VERSION = 3;

/** Sorts object keys for `JSON.stringify`, so the same definition always hashes the same. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `sha256:<16 hex>` of the feature definition this code builds: names, parameters and code version. */
export function featureFingerprint(): string {
  // The horizon (which odds observation a row reads) is when a row is built, not how: left out.
  const { horizon: _horizon, ...params } = resolveFeatureOptions();
  const definition = {
    kind: 'match-features',
    code_version: FEATURE_DEFINITION_VERSION,
    names: [...FEATURE_NAMES],
    params,
  };
  return `sha256:${createHash('sha256').update(JSON.stringify(definition, sortedKeys)).digest('hex').slice(0, 16)}`;
}
