import { MatchcastError } from '../../domain/index.js';
import {
  type Design,
  type FitData,
  type FitParams,
  type ModelFamily,
  type ScoreTerms,
  sampleWeights,
} from '../family.js';
import { minimizeLbfgs } from '../lbfgs.js';

/** Fitted multinomial logit: coefficients `[class][0 = intercept, 1..d]` and the optional market offset. */
export interface MultinomialState {
  coef: number[][];
  /** Input indices of the market log-odds used as a fixed offset (home/away, draw/away), or null. */
  offset_inputs: [number, number] | null;
}

/** Softmax over home/draw/away; with `marketOffset` the fit learns corrections to the market's log-odds. */
export const multinomialLogit: ModelFamily<MultinomialState, 'multinomial_logit'> = {
  kind: '1x2',
  name: 'multinomial_logit',
  fit(data: FitData, warm?: MultinomialState): MultinomialState {
    const { featureNames, inputs, params } = data;
    const ia = featureNames.indexOf('mkt_logit_home_away');
    const ib = featureNames.indexOf('mkt_log_draw_away');
    const offsetInputs: [number, number] | null = params.marketOffset && ia >= 0 && ib >= 0 ? [ia, ib] : null;
    let offsets: Float64Array | undefined;
    if (offsetInputs) {
      offsets = new Float64Array(3 * inputs.length);
      for (let i = 0; i < inputs.length; i++) offsets.set(offsetOf(inputs[i], offsetInputs), 3 * i);
    }
    const coef = fitMultinomial(data.design, data.y, params, data.weights, offsets, warm?.coef);
    return { coef, offset_inputs: offsetInputs };
  },
  predict(state: MultinomialState, z: Float64Array, input: ArrayLike<number>): [number, number, number] {
    const offset = state.offset_inputs ? offsetOf(input, state.offset_inputs) : undefined;
    const s = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      const c = state.coef[k];
      let acc = c[0] + (offset ? offset[k] : 0);
      for (let j = 0; j < z.length; j++) acc += c[j + 1] * z[j];
      s[k] = acc;
    }
    return softmax3(s);
  },
  explain(state: MultinomialState, z: Float64Array, input: ArrayLike<number>): ScoreTerms {
    const terms: [Float64Array, Float64Array, Float64Array] = [0, 1, 2].map((k) => {
      const c = state.coef[k];
      return Float64Array.from(z, (v, j) => c[j + 1] * v);
    }) as [Float64Array, Float64Array, Float64Array];
    const intercept = state.coef.map((c) => c[0]) as [number, number, number];
    const offset = state.offset_inputs ? offsetOf(input, state.offset_inputs) : null;
    return { link: 'softmax', intercept, offset, terms };
  },
  parse(fields: Record<string, unknown>): MultinomialState {
    const { coef, offset_inputs } = fields;
    if (
      !Array.isArray(coef) ||
      coef.length !== 3 ||
      !(offset_inputs === null || Array.isArray(offset_inputs))
    )
      throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'malformed multinomial_logit artifact');
    return { coef: coef as number[][], offset_inputs: offset_inputs as [number, number] | null };
  },
};

/** Softmax offset from the raw market log-odds; zero when the market is missing. */
function offsetOf(x: ArrayLike<number>, idx: readonly [number, number]): [number, number, number] {
  const a = x[idx[0]];
  const b = x[idx[1]];
  return Number.isFinite(a) && Number.isFinite(b) ? [a, b, 0] : [0, 0, 0];
}

/** Multinomial logistic regression, objective = mean NLL + (l2/2)·‖W‖² (intercepts unpenalised). */
function fitMultinomial(
  X: Design,
  y: ArrayLike<number>,
  { l2, maxIter, gradTol }: FitParams,
  weights?: ArrayLike<number>,
  offsets?: Float64Array,
  init?: readonly (readonly number[])[],
): number[][] {
  const { z, n, d } = X;
  const sw = sampleWeights(n, weights);
  const w = d + 1;
  const labels = Int32Array.from(y);
  // Unrolled over the three classes and allocation-free: this loop is the whole cost of training.
  const f = (theta: Float64Array, grad: Float64Array): number => {
    grad.fill(0);
    const w0 = theta.subarray(1, w);
    const w1 = theta.subarray(w + 1, 2 * w);
    const w2 = theta.subarray(2 * w + 1, 3 * w);
    const g0 = grad.subarray(1, w);
    const g1 = grad.subarray(w + 1, 2 * w);
    const g2 = grad.subarray(2 * w + 1, 3 * w);
    const b0 = theta[0];
    const b1 = theta[w];
    const b2 = theta[2 * w];
    let gb0 = 0;
    let gb1 = 0;
    let gb2 = 0;
    let loss = 0;
    for (let i = 0; i < n; i++) {
      const off = i * d;
      let s0 = b0;
      let s1 = b1;
      let s2 = b2;
      if (offsets) {
        s0 += offsets[3 * i];
        s1 += offsets[3 * i + 1];
        s2 += offsets[3 * i + 2];
      }
      for (let j = 0; j < d; j++) {
        const v = z[off + j];
        s0 += w0[j] * v;
        s1 += w1[j] * v;
        s2 += w2[j] * v;
      }
      const mx = s0 > s1 ? Math.max(s0, s2) : Math.max(s1, s2);
      const e0 = Math.exp(s0 - mx);
      const e1 = Math.exp(s1 - mx);
      const e2 = Math.exp(s2 - mx);
      const tot = e0 + e1 + e2;
      const yi = labels[i];
      const wi = sw[i];
      loss -= wi * ((yi === 0 ? s0 : yi === 1 ? s1 : s2) - mx - Math.log(tot));
      const q0 = wi * (e0 / tot - (yi === 0 ? 1 : 0));
      const q1 = wi * (e1 / tot - (yi === 1 ? 1 : 0));
      const q2 = wi * (e2 / tot - (yi === 2 ? 1 : 0));
      gb0 += q0;
      gb1 += q1;
      gb2 += q2;
      for (let j = 0; j < d; j++) {
        const v = z[off + j];
        g0[j] += q0 * v;
        g1[j] += q1 * v;
        g2[j] += q2 * v;
      }
    }
    grad[0] = gb0;
    grad[w] = gb1;
    grad[2 * w] = gb2;
    const inv = 1 / Math.max(1, n);
    loss *= inv;
    for (let t = 0; t < grad.length; t++) grad[t] *= inv;
    for (let k = 0; k < 3; k++) {
      for (let j = 0; j < d; j++) {
        const t = k * w + 1 + j;
        loss += 0.5 * l2 * theta[t] * theta[t];
        grad[t] += l2 * theta[t];
      }
    }
    return loss;
  };
  // A warm start (the previous walk-forward fold) only shortens the path to the same convex optimum.
  const x0 = new Float64Array(3 * w);
  if (init && init.length === 3 && init.every((c) => c.length === w)) {
    for (let k = 0; k < 3; k++) x0.set(init[k], k * w);
  }
  const x = minimizeLbfgs(f, x0, maxIter, gradTol);
  return [0, 1, 2].map((k) => Array.from(x.subarray(k * w, (k + 1) * w)));
}

export function softmax3(s: readonly number[]): [number, number, number] {
  const mx = Math.max(s[0], s[1], s[2]);
  const e0 = Math.exp(s[0] - mx);
  const e1 = Math.exp(s[1] - mx);
  const e2 = Math.exp(s[2] - mx);
  const t = e0 + e1 + e2;
  return [e0 / t, e1 / t, e2 / t];
}
