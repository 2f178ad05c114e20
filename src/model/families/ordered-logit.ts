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

/** Fitted ordered logit: latent η = β·z; P(away) = σ(θ₁ − η), P(away or draw) = σ(θ₂ − η). */
interface OrderedCoef {
  beta: number[];
  theta1: number;
  theta2: number;
}

const sigmoid = (t: number): number => (t >= 0 ? 1 / (1 + Math.exp(-t)) : Math.exp(t) / (1 + Math.exp(t)));

export function orderedProbabilities(eta: number, cuts: readonly [number, number]): [number, number, number] {
  const f1 = sigmoid(cuts[0] - eta);
  const f2 = sigmoid(cuts[1] - eta);
  return [1 - f2, f2 - f1, f1];
}

/** Ordered logit, objective = mean NLL + (l2/2)·‖β‖²; θ₂ = θ₁ + exp(δ) keeps the cut-points ordered. */
function fitOrdered(
  X: Design,
  y: ArrayLike<number>,
  { l2, maxIter, gradTol }: FitParams,
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
  const x = minimizeLbfgs(f, x0, maxIter, gradTol);
  return { beta: Array.from(x.subarray(0, d)), theta1: x[d], theta2: x[d] + Math.exp(x[d + 1]) };
}

/** The challenger family: ordered logit over away < draw < home (goal-difference order). */
export const orderedLogit: ModelFamily<{ ordered: OrderedCoef }, 'ordered_logit'> = {
  kind: '1x2',
  name: 'ordered_logit',
  fit(data: FitData): { ordered: OrderedCoef } {
    return { ordered: fitOrdered(data.design, data.y, data.params, data.weights) };
  },
  predict(state: { ordered: OrderedCoef }, z: Float64Array): [number, number, number] {
    const c = state.ordered;
    let eta = 0;
    for (let j = 0; j < z.length; j++) eta += c.beta[j] * z[j];
    return orderedProbabilities(eta, [c.theta1, c.theta2]);
  },
  explain(state: { ordered: OrderedCoef }, z: Float64Array): ScoreTerms {
    const { beta, theta1, theta2 } = state.ordered;
    return {
      link: 'ordered_logit',
      cuts: [theta1, theta2],
      terms: Float64Array.from(z, (v, j) => beta[j] * v),
    };
  },
  parse(fields: Record<string, unknown>): { ordered: OrderedCoef } {
    const o = fields.ordered as Partial<OrderedCoef> | undefined;
    if (!o || !Array.isArray(o.beta) || typeof o.theta1 !== 'number' || typeof o.theta2 !== 'number')
      throw new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'malformed ordered_logit artifact');
    return { ordered: o as OrderedCoef };
  },
};
