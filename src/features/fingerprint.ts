import { createHash } from 'node:crypto';
import { resolveFeatureOptions } from './feature-group.js';
import { FEATURE_NAMES } from './feature-names.js';

/**
 * The code version of the feature definition. Bump it in the same commit as any change to how a
 * feature column is computed (a formula, a window, a tie rule): every model version trained before
 * then stops being scored on the new columns (workers answer MC_ERR_FEATURES_MISMATCH) until a model
 * trained on them is promoted.
 */
const FEATURE_DEFINITION_VERSION = 3;

/** Canonical JSON: object keys sorted, so the same definition always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The fingerprint of the feature definition this code builds, `sha256:<16 hex>` of its names,
 * parameters (rating constants, windows) and code version.
 */
export function featureFingerprint(): string {
  // The horizon (which odds observation a row reads) is when a row is built, not how: left out.
  const { horizon: _horizon, ...params } = resolveFeatureOptions();
  const definition = {
    kind: 'match-features',
    code_version: FEATURE_DEFINITION_VERSION,
    names: [...FEATURE_NAMES],
    params,
  };
  return `sha256:${createHash('sha256').update(canonical(definition)).digest('hex').slice(0, 16)}`;
}
