/** A fitted log-linear Poisson regression on standardised inputs. Plain data, JSON-serialisable. */
export interface PoissonGlm {
  /** Input means and standard deviations (standardisation happens inside predict). */
  mean: number[];
  std: number[];
  /** Intercept first, then one coefficient per standardised input. */
  coef: number[];
}

const MAX_ITER = 30;

/** Fits log E[y] = b0 + Σ w_j z_j by Newton–Raphson, objective = mean NLL + l2/2·‖w‖²; `x` finite, n×p. */
export function fitPoissonGlm(x: Float64Array, p: number, y: ArrayLike<number>, l2: number): PoissonGlm {
  const n = y.length;
  const mean = new Array<number>(p).fill(0);
  const std = new Array<number>(p).fill(0);
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[i * p + j];
    mean[j] = s / n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (x[i * p + j] - mean[j]) ** 2;
    std[j] = Math.sqrt(v / n) || 1;
  }
  const d = p + 1;
  const z = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    z[i * d] = 1;
    for (let j = 0; j < p; j++) z[i * d + j + 1] = (x[i * p + j] - mean[j]) / std[j];
  }
  let ybar = 0;
  for (let i = 0; i < n; i++) ybar += y[i];
  const beta = new Float64Array(d);
  beta[0] = Math.log(Math.max(ybar / n, 1e-6));
  const g = new Float64Array(d);
  const hmat = new Float64Array(d * d);
  for (let it = 0; it < MAX_ITER; it++) {
    g.fill(0);
    hmat.fill(0);
    for (let i = 0; i < n; i++) {
      const o = i * d;
      let eta = 0;
      for (let j = 0; j < d; j++) eta += beta[j] * z[o + j];
      const mu = Math.exp(eta);
      const w = 1 / n;
      const r = w * (mu - y[i]);
      const wm = w * mu;
      for (let j = 0; j < d; j++) {
        g[j] += r * z[o + j];
        const wz = wm * z[o + j];
        for (let k = 0; k <= j; k++) hmat[j * d + k] += wz * z[o + k];
      }
    }
    for (let j = 1; j < d; j++) {
      g[j] += l2 * beta[j];
      hmat[j * d + j] += l2;
    }
    for (let j = 0; j < d; j++) for (let k = j + 1; k < d; k++) hmat[j * d + k] = hmat[k * d + j];
    const step = solve(hmat, g, d);
    let maxStep = 0;
    for (let j = 0; j < d; j++) {
      beta[j] -= step[j];
      maxStep = Math.max(maxStep, Math.abs(step[j]));
    }
    if (maxStep < 1e-9) break;
  }
  return { mean, std, coef: Array.from(beta) };
}

/** Predicted mean of one input row (`x[offset..offset+p)`, finite values expected). */
export function predictPoissonGlm(glm: PoissonGlm, x: ArrayLike<number>, offset = 0): number {
  let eta = glm.coef[0];
  for (let j = 0; j < glm.mean.length; j++) {
    eta += glm.coef[j + 1] * ((x[offset + j] - glm.mean[j]) / glm.std[j]);
  }
  return Math.exp(eta);
}

/** Solves A s = b for symmetric positive-definite A (Cholesky), A row-major d×d. */
function solve(a: Float64Array, b: Float64Array, d: number): Float64Array {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j];
      for (let k = 0; k < j; k++) s -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / l[j * d + j];
    }
  }
  const t = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * d + k] * t[k];
    t[i] = s / l[i * d + i];
  }
  const out = new Float64Array(d);
  for (let i = d - 1; i >= 0; i--) {
    let s = t[i];
    for (let k = i + 1; k < d; k++) s -= l[k * d + i] * out[k];
    out[i] = s / l[i * d + i];
  }
  return out;
}
