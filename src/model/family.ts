import type { GoalInput } from './goals/goal-inputs.js';

/** Design matrix: `n` rows of width `d`, row-major, already imputed and standardised. */
export interface Design {
  z: Float64Array;
  n: number;
  d: number;
}

/** The resolved training parameters a family may read. */
export interface FitParams {
  /** L2 penalty on standardised coefficients (objective = mean NLL + l2/2·‖w‖²). Default `0.01`. */
  l2: number;
  /** Multinomial: market log-odds as a fixed offset, so L2 shrinks towards the market. Default `false`. */
  marketOffset: boolean;
  /** L-BFGS iteration cap. Default `300`. */
  maxIter: number;
  /** L-BFGS max abs gradient. Default `1e-5`: tighter changes log loss only in the 7th decimal. */
  gradTol: number;
}

/** What a family's `fit` sees: the preprocessed design plus the raw inputs it was made from. */
export interface FitData {
  design: Design;
  inputs: readonly Float64Array[];
  featureNames: readonly string[];
  /** Outcome labels: 0 home, 1 draw, 2 away. */
  y: ArrayLike<number>;
  weights?: ArrayLike<number>;
  params: FitParams;
}

/** The seam every model family implements: `State` is plain JSON, `parse` the validating way back. */
interface Family<
  Kind extends string,
  Data,
  Row extends unknown[],
  Output,
  State extends object = object,
  Name extends string = string,
> {
  readonly kind: Kind;
  /** Stable name, stored in artifacts and the registry (`params.family`); never rename. */
  readonly name: Name;
  /** `warm` is an earlier fit of the same family (a hint: same optimum, fewer steps). */
  fit(data: Data, warm?: State): State;
  predict(state: State, ...row: Row): Output;
  /** Throws `MC_ERR_MODEL_UNAVAILABLE` on a malformed artifact. */
  parse(fields: Record<string, unknown>): State;
}

/** A 1X2 family: a classifier on the shared preprocessing; `predict` reads `z` and the raw `input`. */
export type ModelFamily<State extends object = object, Name extends string = string> = Family<
  '1x2',
  FitData,
  [z: Float64Array, input: ArrayLike<number>],
  [number, number, number],
  State,
  Name
> & {
  /** One row's prediction as additive terms; omitted when the scores are not a sum of per-input terms. */
  explain?(state: State, z: Float64Array, input: ArrayLike<number>): ScoreTerms;
};

/** One term per preprocessed column (coefficient × value), summed into softmax scores or ordered-logit η. */
export type ScoreTerms =
  | {
      link: 'softmax';
      intercept: [number, number, number];
      offset: [number, number, number] | null;
      terms: [Float64Array, Float64Array, Float64Array];
    }
  | { link: 'ordered_logit'; cuts: [number, number]; terms: Float64Array };

/** Poisson means (home, away) and Dixon–Coles ρ of one match; the score matrix follows from them. */
export interface GoalsPrediction {
  lh: number;
  la: number;
  rho: number;
}

export interface GoalsFitParams {
  /** L2 penalty on standardised slopes. Default `1e-3`. */
  l2: number;
}

export interface GoalsFitData {
  rows: readonly GoalInput[];
  params: GoalsFitParams;
}

/** A goals family: a score model on finished matches' inputs; the goals artifact keeps its `state`. */
export type GoalsFamily<State extends object = object, Name extends string = string> = Family<
  'goals',
  GoalsFitData,
  [input: GoalInput],
  GoalsPrediction,
  State,
  Name
>;

/** Per-row weights normalised to mean 1 (so `l2` means the same with or without them); all 1 when absent. */
export function sampleWeights(n: number, weights?: ArrayLike<number>): Float64Array {
  const w = new Float64Array(n).fill(1);
  if (!weights) return w;
  let s = 0;
  for (let i = 0; i < n; i++) s += weights[i];
  const scale = s > 0 ? n / s : 1;
  for (let i = 0; i < n; i++) w[i] = weights[i] * scale;
  return w;
}
