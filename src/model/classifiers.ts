import { type LbfgsOptions, minimizeLbfgs } from './lbfgs.js';

/** Design matrix: `n` rows of width `d`, row-major. */
export interface Design {
  z: Float64Array;
  n: number;
  d: number;
}

/**
 * Multinomial logistic regression, softmax over 3 classes, objective = mean NLL + (l2/2)·‖W‖²
 * (intercepts unpenalised). Returns coefficients `[class][0 = intercept, 1..d]`.
 */
export function fitMultinomial(
  X: Design,
  y: ArrayLike<number>,
  l2: number,
  opt: LbfgsOptions,
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
  const { x } = minimizeLbfgs(f, x0, opt);
  return [0, 1, 2].map((k) => Array.from(x.subarray(k * w, (k + 1) * w)));
}

export function predictMultinomial(
  coef: readonly (readonly number[])[],
  z: Float64Array,
  offset?: readonly [number, number, number],
): [number, number, number] {
  const s = [0, 0, 0];
  for (let k = 0; k < 3; k++) {
    const c = coef[k];
    let acc = c[0] + (offset ? offset[k] : 0);
    for (let j = 0; j < z.length; j++) acc += c[j + 1] * z[j];
    s[k] = acc;
  }
  const mx = Math.max(s[0], s[1], s[2]);
  const e0 = Math.exp(s[0] - mx);
  const e1 = Math.exp(s[1] - mx);
  const e2 = Math.exp(s[2] - mx);
  const t = e0 + e1 + e2;
  return [e0 / t, e1 / t, e2 / t];
}

/** Ordered-logit coefficients: latent η = β·z; P(away) = σ(θ₁ − η), P(away or draw) = σ(θ₂ − η). */
export interface OrderedCoef {
  beta: number[];
  theta1: number;
  theta2: number;
}

const sigmoid = (t: number): number => (t >= 0 ? 1 / (1 + Math.exp(-t)) : Math.exp(t) / (1 + Math.exp(t)));

/**
 * Ordered logit over away < draw < home (goal difference order), objective = mean NLL + (l2/2)·‖β‖².
 * θ₂ = θ₁ + exp(δ) keeps the cut-points ordered.
 */
export function fitOrdered(
  X: Design,
  y: ArrayLike<number>,
  l2: number,
  opt: LbfgsOptions,
  weights?: ArrayLike<number>,
): OrderedCoef {
  const { z, n, d } = X;
  const sw = sampleWeights(n, weights);
  const f = (par: Float64Array, grad: Float64Array): number => {
    grad.fill(0);
    const t1 = par[d];
    const ed = Math.exp(par[d + 1]);
    const t2 = t1 + ed;
    let loss = 0;
    let g1 = 0;
    let g2 = 0;
    for (let i = 0; i < n; i++) {
      const off = i * d;
      let eta = 0;
      for (let j = 0; j < d; j++) eta += par[j] * z[off + j];
      const F1 = sigmoid(t1 - eta);
      const F2 = sigmoid(t2 - eta);
      const r = 2 - y[i];
      const wi = sw[i];
      let dEta: number;
      if (r === 0) {
        loss -= wi * Math.log(Math.max(F1, 1e-300));
        g1 -= wi * (1 - F1);
        dEta = wi * (1 - F1);
      } else if (r === 1) {
        const p = Math.max(F2 - F1, 1e-300);
        loss -= wi * Math.log(p);
        const f1 = F1 * (1 - F1);
        const f2 = F2 * (1 - F2);
        g1 += (wi * f1) / p;
        g2 -= (wi * f2) / p;
        dEta = (wi * (f2 - f1)) / p;
      } else {
        loss -= wi * Math.log(Math.max(1 - F2, 1e-300));
        g2 += wi * F2;
        dEta = -wi * F2;
      }
      for (let j = 0; j < d; j++) grad[j] += dEta * z[off + j];
    }
    const inv = 1 / Math.max(1, n);
    loss *= inv;
    for (let j = 0; j < d; j++) {
      grad[j] = grad[j] * inv + l2 * par[j];
      loss += 0.5 * l2 * par[j] * par[j];
    }
    grad[d] = (g1 + g2) * inv;
    grad[d + 1] = g2 * ed * inv;
    return loss;
  };
  const x0 = new Float64Array(d + 2);
  x0[d] = -0.9;
  x0[d + 1] = Math.log(1.1);
  const { x } = minimizeLbfgs(f, x0, opt);
  return { beta: Array.from(x.subarray(0, d)), theta1: x[d], theta2: x[d] + Math.exp(x[d + 1]) };
}

export function predictOrdered(c: OrderedCoef, z: Float64Array): [number, number, number] {
  let eta = 0;
  for (let j = 0; j < z.length; j++) eta += c.beta[j] * z[j];
  const F1 = sigmoid(c.theta1 - eta);
  const F2 = sigmoid(c.theta2 - eta);
  return [1 - F2, F2 - F1, F1];
}

/** Per-row weights normalised to mean 1 (so `l2` means the same with or without weights); all 1 when absent. */
function sampleWeights(n: number, weights?: ArrayLike<number>): Float64Array {
  const w = new Float64Array(n).fill(1);
  if (!weights) return w;
  let s = 0;
  for (let i = 0; i < n; i++) s += weights[i];
  const scale = s > 0 ? n / s : 1;
  for (let i = 0; i < n; i++) w[i] = weights[i] * scale;
  return w;
}
