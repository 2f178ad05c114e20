import { DAY_MS, MatchcastError } from '../domain/index.js';
import { DEFAULT_FAMILY, type ModelFamilyName, modelFamily } from './families/index.js';
import type { Design, FitParams } from './family.js';
import { fitPreprocessor, type Preprocessor, preprocessedWidth, transform } from './preprocess.js';

/** Bump on any incompatible change of the artifact layout. */
export const MODEL_FORMAT_VERSION = 1;

/** Resolved parameters as stored in the artifact and registry. */
export interface ResolvedParams extends FitParams {
  /** Default `multinomial_logit`. */
  family: ModelFamilyName;
  /** Add 0/1 missing indicators for features missing in training. Default `true`. */
  missingIndicators: boolean;
  /** Recency weighting: a match `halfLifeDays` older than the newest counts half. Default `0` (off). */
  halfLifeDays: number;
}

export type TrainParams = Partial<ResolvedParams>;

export function resolveParams(p: TrainParams = {}): ResolvedParams {
  return {
    family: p.family ?? DEFAULT_FAMILY,
    l2: p.l2 ?? 0.01,
    missingIndicators: p.missingIndicators ?? true,
    halfLifeDays: p.halfLifeDays ?? 0,
    marketOffset: p.marketOffset ?? false,
    maxIter: p.maxIter ?? 300,
    gradTol: p.gradTol ?? 1e-5,
  };
}

/** The shared preprocessing plus one family's fitted `state`; plain data. */
export interface Model {
  format_version: number;
  feature_names: string[];
  params: ResolvedParams;
  preprocessor: Preprocessor;
  n_train: number;
  family: ModelFamilyName;
  state: object;
}

/** Fits preprocessing and the family on inputs `X` (NaN = missing); `warmStart` only saves iterations. */
export function trainModel(
  X: readonly Float64Array[],
  y: ArrayLike<number>,
  params: TrainParams & { featureNames: readonly string[] },
  weights?: ArrayLike<number>,
  warmStart?: Model,
): Model {
  if (X.length === 0) throw new MatchcastError('MC_ERR_VALIDATION', 'no training rows');
  if (X.length !== y.length) throw new MatchcastError('MC_ERR_VALIDATION', 'X and y differ in length');
  const p = resolveParams(params);
  const family = modelFamily(p.family);
  const pre = fitPreprocessor(X, p.missingIndicators);
  const d = preprocessedWidth(pre);
  const z = new Float64Array(X.length * d);
  for (let i = 0; i < X.length; i++) transform(pre, X[i], z.subarray(i * d, (i + 1) * d));
  const design: Design = { z, n: X.length, d };
  const state = family.fit(
    { design, inputs: X, featureNames: params.featureNames, y, weights, params: p },
    warmStart?.family === p.family ? warmStart.state : undefined,
  );
  return {
    format_version: MODEL_FORMAT_VERSION,
    feature_names: [...params.featureNames],
    params: p,
    preprocessor: pre,
    n_train: X.length,
    family: p.family,
    state,
  };
}

/** Probabilities (home, draw, away) for one `toModelInput(row, model.feature_names)` vector. */
export function predictProba(model: Model, input: ArrayLike<number>): [number, number, number] {
  if (input.length !== model.feature_names.length)
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `expected ${model.feature_names.length} inputs, got ${input.length}`,
    );
  return modelFamily(model.family).predict(model.state, transform(model.preprocessor, input), input);
}

/** JSON text of the artifact; numbers round-trip exactly, so predictions reproduce bit for bit. */
export function serializeModel(model: Model): string {
  const { state, ...common } = model;
  return JSON.stringify({ ...common, ...state });
}

/** Throws MC_ERR_MODEL_UNAVAILABLE on an unknown format or family. */
export function deserializeModel(json: string): Model {
  const raw = parseArtifact(json, MODEL_FORMAT_VERSION, 'model');
  const { format_version, feature_names, params, preprocessor, n_train, family, ...fields } = raw;
  const impl = modelFamily(family);
  return {
    format_version: format_version as number,
    feature_names: feature_names as string[],
    params: params as ResolvedParams,
    preprocessor: preprocessor as Preprocessor,
    n_train: n_train as number,
    family: impl.name as ModelFamilyName,
    state: impl.parse(fields),
  };
}

/** The JSON object of a `what` artifact of format `version`; MC_ERR_MODEL_UNAVAILABLE when it is not one. */
export function parseArtifact(text: string, version: number, what: string): Record<string, unknown> {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', `${what} artifact is not valid JSON`, {
      cause: err,
    });
  }
  if (raw?.format_version !== version)
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `unsupported ${what} format_version ${raw?.format_version}`,
    );
  return raw;
}

/** Weights 0.5^(age / halfLifeDays), age from the newest kick-off; undefined when halfLifeDays ≤ 0. */
export function recencyWeights(startTimesMs: readonly number[], halfLifeDays: number): number[] | undefined {
  if (!(halfLifeDays > 0) || startTimesMs.length === 0) return undefined;
  const newest = startTimesMs.reduce((a, t) => Math.max(a, t), Number.NEGATIVE_INFINITY);
  const scale = 1 / (halfLifeDays * DAY_MS);
  return startTimesMs.map((t) => 0.5 ** ((newest - t) * scale));
}
