import { MatchcastError } from '../domain/index.js';
import {
  type Design,
  fitMultinomial,
  fitOrdered,
  type OrderedCoef,
  predictMultinomial,
  predictOrdered,
} from './classifiers.js';
import { fitPreprocessor, type Preprocessor, preprocessedWidth, transform } from './preprocess.js';

/** Version of the serialised artifact layout; bump on any incompatible change. */
export const MODEL_FORMAT_VERSION = 1;

/** Classifier families: the champion family and the challenger family. */
export type ModelFamily = 'multinomial_logit' | 'ordered_logit';

/** Training parameters; all optional. */
export interface TrainParams {
  /** Classifier family. Default `multinomial_logit`. */
  family?: ModelFamily;
  /** L2 penalty on standardised coefficients (objective = mean NLL + l2/2·‖w‖²). Default `0.01`. */
  l2?: number;
  /** Add 0/1 missing indicators for features missing in training. Default `true`. */
  missingIndicators?: boolean;
  /**
   * Recency weighting: a training match `halfLifeDays` older than the newest one counts half.
   * Default `0` = all matches weigh the same.
   */
  halfLifeDays?: number;
  /**
   * Multinomial family only: use the market's log-odds (`mkt_logit_home_away`, `mkt_log_draw_away`,
   * when both are inputs and present) as a fixed offset, so the classifier learns corrections to the
   * market and the L2 penalty shrinks towards the market rather than towards equal odds. Default `false`.
   */
  marketOffset?: boolean;
  /** L-BFGS iteration cap. Default `300`. */
  maxIter?: number;
  /** L-BFGS gradient tolerance (max abs component). Default `1e-5`: tighter changes log loss only in the 7th decimal. */
  gradTol?: number;
}

/** Resolved parameters as stored in the artifact and registry. */
export interface ResolvedParams {
  family: ModelFamily;
  l2: number;
  missingIndicators: boolean;
  halfLifeDays: number;
  marketOffset: boolean;
  maxIter: number;
  gradTol: number;
}

export function resolveParams(p: TrainParams = {}): ResolvedParams {
  return {
    family: p.family ?? 'multinomial_logit',
    l2: p.l2 ?? 0.01,
    missingIndicators: p.missingIndicators ?? true,
    halfLifeDays: p.halfLifeDays ?? 0,
    marketOffset: p.marketOffset ?? false,
    maxIter: p.maxIter ?? 300,
    gradTol: p.gradTol ?? 1e-5,
  };
}

/** A whole model: preprocessing + classifier. Plain data, JSON-serialisable. */
export type Model = {
  format_version: number;
  feature_names: string[];
  params: ResolvedParams;
  preprocessor: Preprocessor;
  n_train: number;
} & (
  | {
      family: 'multinomial_logit';
      coef: number[][];
      /** Input indices of the market log-odds used as a fixed offset (home/away, draw/away), or null. */
      offset_inputs: [number, number] | null;
    }
  | { family: 'ordered_logit'; ordered: OrderedCoef }
);

/** Softmax offset from the raw market log-odds; zero when the market is missing. */
function offsetOf(x: ArrayLike<number>, idx: readonly [number, number]): [number, number, number] {
  const a = x[idx[0]];
  const b = x[idx[1]];
  return Number.isFinite(a) && Number.isFinite(b) ? [a, b, 0] : [0, 0, 0];
}

/**
 * Fits preprocessing and classifier on inputs `X` (rows from `toModelInput`, NaN = missing) and labels
 * `y` (0 home, 1 draw, 2 away). `weights` (optional, one per row) weight the likelihood; see
 * {@link recencyWeights}. `warmStart` (optional, multinomial only) starts the optimiser from another
 * model's coefficients when the shapes match — same optimum, fewer iterations. Deterministic: same
 * inputs, same model.
 */
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
  const pre = fitPreprocessor(X, { missingIndicators: p.missingIndicators });
  const d = preprocessedWidth(pre);
  const z = new Float64Array(X.length * d);
  for (let i = 0; i < X.length; i++) transform(pre, X[i], z.subarray(i * d, (i + 1) * d));
  const design: Design = { z, n: X.length, d };
  const opt = { maxIter: p.maxIter, gradTol: p.gradTol };
  const base = {
    format_version: MODEL_FORMAT_VERSION,
    feature_names: [...params.featureNames],
    params: p,
    preprocessor: pre,
    n_train: X.length,
  };
  if (p.family === 'ordered_logit') {
    return { ...base, family: 'ordered_logit', ordered: fitOrdered(design, y, p.l2, opt, weights) };
  }
  const ia = params.featureNames.indexOf('mkt_logit_home_away');
  const ib = params.featureNames.indexOf('mkt_log_draw_away');
  const offsetInputs: [number, number] | null = p.marketOffset && ia >= 0 && ib >= 0 ? [ia, ib] : null;
  let offsets: Float64Array | undefined;
  if (offsetInputs) {
    offsets = new Float64Array(3 * X.length);
    for (let i = 0; i < X.length; i++) offsets.set(offsetOf(X[i], offsetInputs), 3 * i);
  }
  return {
    ...base,
    family: 'multinomial_logit',
    coef: fitMultinomial(
      design,
      y,
      p.l2,
      opt,
      weights,
      offsets,
      warmStart?.family === 'multinomial_logit' ? warmStart.coef : undefined,
    ),
    offset_inputs: offsetInputs,
  };
}

/** Probabilities (home, draw, away) for one input vector built by `toModelInput(row, model.feature_names)`. */
export function predictProba(model: Model, input: ArrayLike<number>): [number, number, number] {
  if (input.length !== model.feature_names.length) {
    throw new MatchcastError(
      'MC_ERR_VALIDATION',
      `expected ${model.feature_names.length} inputs, got ${input.length}`,
    );
  }
  const z = transform(model.preprocessor, input);
  if (model.family === 'ordered_logit') return predictOrdered(model.ordered, z);
  const off = model.offset_inputs ? offsetOf(input, model.offset_inputs) : undefined;
  return predictMultinomial(model.coef, z, off);
}

/** JSON text of the artifact; numbers round-trip exactly, so predictions reproduce bit for bit. */
export function serializeModel(model: Model): string {
  return JSON.stringify(model);
}

/** Parses an artifact written by {@link serializeModel}; throws MC_ERR_MODEL_UNAVAILABLE on an unknown format. */
export function deserializeModel(json: string): Model {
  let m: Model;
  try {
    m = JSON.parse(json) as Model;
  } catch (err) {
    throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'model artifact is not valid JSON', { cause: err });
  }
  if (!m || m.format_version !== MODEL_FORMAT_VERSION) {
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `unsupported model format_version ${String(m?.format_version)}`,
    );
  }
  if (m.family !== 'multinomial_logit' && m.family !== 'ordered_logit') {
    throw new MatchcastError(
      'MC_ERR_MODEL_UNAVAILABLE',
      `unknown model family ${String((m as { family?: unknown }).family)}`,
    );
  }
  return m;
}

/** Weights 0.5^(age / halfLifeDays) by kick-off time relative to the newest row; undefined when halfLifeDays ≤ 0. */
export function recencyWeights(startTimesMs: readonly number[], halfLifeDays: number): number[] | undefined {
  if (!(halfLifeDays > 0) || startTimesMs.length === 0) return undefined;
  let newest = Number.NEGATIVE_INFINITY;
  for (const t of startTimesMs) newest = Math.max(newest, t);
  const scale = 1 / (halfLifeDays * 86_400_000);
  return startTimesMs.map((t) => 0.5 ** ((newest - t) * scale));
}
