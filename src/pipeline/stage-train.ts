import { KEYS, MatchcastError } from '../domain/index.js';
import { type FeatureRow, featureFingerprint } from '../features/index.js';
import {
  DEFAULT_FAMILY,
  type ModelFamilyName,
  serializeModel,
  type TrainAndValidateResult,
  type TrainParams,
  trainAndValidate,
} from '../model/index.js';
import type { FeaturesArtifactRef, ModelVersion, NewVersion } from '../registry/index.js';
import { newRunId } from '../registry/index.js';
import { readFeatureRows } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import { trainingRunKey } from './run-key.js';
import { resultsEnd } from './windows.js';

/** The features object a stage reads: the run's artifact, else the legacy top-level key. */
function featuresArtifactOf(deps: Pick<PipelineDeps, 'run'>): FeaturesArtifactRef {
  const ref = deps.run?.ref('features');
  if (ref) return { run_id: ref.run_id, bucket: ref.bucket, key: ref.key, etag: ref.etag };
  return { run_id: null, bucket: KEYS.features.bucket, key: KEYS.features.key, etag: null };
}

interface TrainOptions {
  family?: ModelFamilyName;
  /** Days of the validation window ending at as-of. Default `365`. */
  validationDays?: number;
  /** Feature rows already in memory (from the features stage). Default: read the features file. */
  featureRows?: FeatureRow[];
}

export interface TrainResult {
  version: ModelVersion;
  /** Seconds spent fitting (validation fit + refit); 0 when a version was reused. */
  fit_seconds: number;
  /** True when a ready version with the same run key was reused instead of registering a new one. */
  reused: boolean;
}

/**
 * `pipeline train`: validates on `validationDays` ending at {@link resultsEnd}, refits and registers; the
 * params record the validation window so that promotion can compare like with like.
 */
export async function runTrainStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'registry' | 'log' | 'progress' | 'run'>,
  asOf: Date,
  options: TrainOptions = {},
): Promise<TrainResult> {
  const load = progressOf(deps).step('train', 'load', 1);
  const rows = options.featureRows ?? (await readFeatureRows(deps));
  const labelled = rows.filter((r) => r.label !== null && r.start_time_utc < asOf).length;
  load.done({ rows: rows.length, labelled });
  if (labelled === 0) {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `no finished match before as-of ${asOf.toISOString()} to train on (${rows.length} feature rows${rows.length === 0 ? ': empty or wrong database?' : ''}); a model cannot be trained without results, --force or not`,
    );
  }

  const validationDays = options.validationDays ?? 365;
  // Same training data as `asOf`, but the validation window covers the last year of results.
  const end = resultsEnd(rows, asOf);
  const runKey = trainingRunKey({
    rows,
    end,
    family: options.family ?? DEFAULT_FAMILY,
    validationDays,
    featureFingerprint: deps.run?.record.features_fingerprint ?? featureFingerprint(),
  });
  const same = await deps.registry.findByRunKey(runKey);
  if (same) {
    // Unchanged data, parameters and code: the fit would give this version again.
    deps.log.info(
      { version: same.version, run_id: same.run_id, run_key: runKey },
      `train: data, parameters and code unchanged since version ${same.version}: reused, nothing registered`,
    );
    progressOf(deps).step('train', 'register', 1).done({ version: same.version, reused: true });
    return { version: same, fit_seconds: 0, reused: true };
  }
  const fit = progressOf(deps).step('train', 'fit', 1);
  const t0 = performance.now();
  const result = trainAndValidate(rows, { asOf: end, validationDays, family: options.family });
  const fitSeconds = (performance.now() - t0) / 1000;
  fit.done({
    family: result.params.family,
    log_loss: result.metrics.log_loss,
    market_log_loss: result.metrics.market_log_loss,
    n_valid: result.metrics.n,
    seconds: Number(fitSeconds.toFixed(2)),
  });

  const reg = progressOf(deps).step('train', 'register', 1);
  const version = await deps.registry.registerVersion(
    newVersionOf(deps, result, asOf, end, validationDays, { run_key: runKey }),
  );
  reg.done({ version: version.version, run_id: version.run_id, artifact: version.artifact_uri });
  return { version, fit_seconds: fitSeconds, reused: false };
}

/** The registry entry of a model fitted by {@link trainAndValidate}, with its window and features. */
export function newVersionOf(
  deps: Pick<PipelineDeps, 'run'>,
  result: TrainAndValidateResult,
  asOf: Date,
  end: Date,
  validationDays: number,
  extraParams: Record<string, string> = {},
): NewVersion {
  return {
    run_id: newRunId(),
    metrics: result.metrics,
    params: {
      ...result.params,
      ...extraParams,
      as_of: asOf.toISOString(),
      results_end: end.toISOString(),
      validation_days: validationDays,
      validation_from: result.validationWindow.from.toISOString(),
      validation_to: result.validationWindow.to.toISOString(),
      n_features: result.featureNames.length,
    },
    feature_names: result.featureNames,
    training_cutoff: result.trainingCutoff,
    artifact: serializeModel(result.model),
    feature_fingerprint: deps.run?.record.features_fingerprint ?? featureFingerprint(),
    features_artifact: featuresArtifactOf(deps),
    pipeline_run_id: deps.run?.runId,
  };
}

/** The training recipe of a version, read back from what {@link newVersionOf} stored as strings. */
export function recipeOf(version: ModelVersion): {
  family: ModelFamilyName;
  params: TrainParams;
  featureNames: string[];
} {
  const p = version.params;
  const numOf = (k: string) => (p[k] === undefined || p[k] === '' ? undefined : Number(p[k]));
  const boolOf = (k: string) => (p[k] === undefined ? undefined : p[k] === 'true');
  const params: TrainParams = {
    l2: numOf('l2'),
    missingIndicators: boolOf('missingIndicators'),
    halfLifeDays: numOf('halfLifeDays'),
    marketOffset: boolOf('marketOffset'),
    maxIter: numOf('maxIter'),
    gradTol: numOf('gradTol'),
  };
  for (const k of Object.keys(params) as (keyof TrainParams)[]) if (params[k] === undefined) delete params[k];
  return {
    family: (p.family as ModelFamilyName | undefined) ?? DEFAULT_FAMILY,
    params,
    featureNames: [...version.feature_names],
  };
}
