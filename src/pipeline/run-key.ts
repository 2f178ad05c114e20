import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type FeatureRow, labelKnownBy } from '../features/index.js';
import { MODEL_FORMAT_VERSION } from '../model/index.js';

// Code that changes without a new feature fingerprint still ships under a new package version.
const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** What decides a trained version: equal keys train the same model from the same data. */
interface RunKeyInput {
  /** The feature rows of the run; those whose result is known at `end` are the training data. */
  rows: readonly FeatureRow[];
  /** The training cut-off (last known result): results after it do not change the model. */
  end: Date;
  family: string;
  validationDays: number;
  /** The feature definition's fingerprint. */
  featureFingerprint: string;
  /** Further parameters that change the fit (a role, fixed hyperparameters). */
  params?: Record<string, string | number>;
}

/** The run key of a training: `pipeline run` reuses a ready version with the same key, not refitting. */
export function trainingRunKey(input: RunKeyInput): string {
  const hash = createHash('sha256');
  const params = Object.entries(input.params ?? {}).sort(([a], [b]) => a.localeCompare(b));
  hash.update(
    JSON.stringify({
      code: { package: PACKAGE_VERSION, model_format: MODEL_FORMAT_VERSION },
      features: input.featureFingerprint,
      family: input.family,
      validation_days: input.validationDays,
      end: input.end.toISOString(),
      params,
    }),
  );
  const training = input.rows
    .filter((r) => labelKnownBy(r, input.end.getTime()))
    .sort((a, b) => a.match_id - b.match_id);
  // A row records the run's as-of; its values for a finished match do not depend on it.
  for (const { as_of: _asOf, ...row } of training) hash.update(`\n${JSON.stringify(row)}`);
  return hash.digest('hex');
}
