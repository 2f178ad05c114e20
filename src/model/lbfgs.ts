/** Objective for {@link minimizeLbfgs}: writes the gradient into `grad` and returns the value. */
type Objective = (x: Float64Array, grad: Float64Array) => number;

const REL_TOL = 1e-10;
const MEMORY = 10;

/** Deterministic L-BFGS with Armijo backtracking, from `x0` (kept) until max |gradient| < `gradTol`. */
export function minimizeLbfgs(
  f: Objective,
  x0: Float64Array,
  maxIter: number,
  gradTol: number,
): Float64Array {
  const m = MEMORY;
  const n = x0.length;
  let x = Float64Array.from(x0);
  let g = new Float64Array(n);
  let fx = f(x, g);
  const S: Float64Array[] = [];
  const Y: Float64Array[] = [];
  const rho: number[] = [];
  const d = new Float64Array(n);
  const alpha = new Float64Array(m);
  let xNew = new Float64Array(n);
  let gNew = new Float64Array(n);
  for (let iter = 0; iter < maxIter; iter++) {
    if (maxAbs(g) < gradTol) break;
    // Two-loop recursion: d = −H g.
    for (let i = 0; i < n; i++) d[i] = -g[i];
    for (let k = S.length - 1; k >= 0; k--) {
      alpha[k] = rho[k] * dot(S[k], d);
      axpy(-alpha[k], Y[k], d);
    }
    if (S.length > 0) {
      const last = S.length - 1;
      const gamma = dot(S[last], Y[last]) / dot(Y[last], Y[last]);
      for (let i = 0; i < n; i++) d[i] *= gamma;
    } else {
      const gn = Math.sqrt(dot(g, g));
      for (let i = 0; i < n; i++) d[i] /= Math.max(1, gn);
    }
    for (let k = 0; k < S.length; k++) {
      const beta = rho[k] * dot(Y[k], d);
      axpy(alpha[k] - beta, S[k], d);
    }
    let slope = dot(g, d);
    if (slope >= 0) {
      // Not a descent direction (numerical trouble): restart from steepest descent.
      S.length = 0;
      Y.length = 0;
      rho.length = 0;
      for (let i = 0; i < n; i++) d[i] = -g[i];
      slope = dot(g, d);
    }
    let step = 1;
    let fNew = Number.POSITIVE_INFINITY;
    for (let ls = 0; ls < 40; ls++) {
      for (let i = 0; i < n; i++) xNew[i] = x[i] + step * d[i];
      fNew = f(xNew, gNew);
      if (fNew <= fx + 1e-4 * step * slope) break;
      step *= 0.5;
    }
    if (!(fNew <= fx)) break;
    const s = new Float64Array(n);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      s[i] = xNew[i] - x[i];
      y[i] = gNew[i] - g[i];
    }
    const sy = dot(s, y);
    if (sy > 1e-12) {
      if (S.length === m) {
        S.shift();
        Y.shift();
        rho.shift();
      }
      S.push(s);
      Y.push(y);
      rho.push(1 / sy);
    }
    const rel = (fx - fNew) / Math.max(1, Math.abs(fx));
    [x, xNew] = [xNew, x];
    [g, gNew] = [gNew, g];
    fx = fNew;
    if (rel < REL_TOL) break;
  }
  return x;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function axpy(a: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < x.length; i++) y[i] += a * x[i];
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}
