/** Goals counted on each side of a score matrix: 0..MAX_GOALS (mass beyond is folded in by renormalising). */
const MAX_GOALS = 10;
export const MATRIX_SIZE = MAX_GOALS + 1;

/** Poisson probabilities P(0..n) with mean `lambda`, written into `out` when given (no allocation). */
export function poissonPmf(lambda: number, n = MAX_GOALS, out = new Float64Array(n + 1)): Float64Array {
  out[0] = Math.exp(-lambda);
  for (let k = 1; k <= n; k++) out[k] = (out[k - 1] * lambda) / k;
  return out;
}

// Scratch buffers: the solver is synchronous, so one pair serves every call.
const PH = new Float64Array(MATRIX_SIZE);
const PA = new Float64Array(MATRIX_SIZE);

/** P(home), P(away), P(total > 2.5) of independent Poisson goals with these means (O(n) via CDFs). */
function priceOf(lh: number, la: number): [number, number, number] {
  const ph = poissonPmf(lh, MATRIX_SIZE - 1, PH);
  const pa = poissonPmf(la, MATRIX_SIZE - 1, PA);
  let home = 0;
  let away = 0;
  let cdfH = 0;
  let cdfA = 0;
  for (let k = 0; k < MATRIX_SIZE; k++) {
    // P(home = k) · P(away < k), and the mirror image.
    home += ph[k] * cdfA;
    away += pa[k] * cdfH;
    cdfA += pa[k];
    cdfH += ph[k];
  }
  const under = ph[0] * (pa[0] + pa[1] + pa[2]) + ph[1] * (pa[0] + pa[1]) + ph[2] * pa[0];
  return [home, away, 1 - under];
}

const logit = (p: number) => Math.log(p / (1 - p));

/**
 * The Poisson means matching the market's home/away ratio and P(over 2.5) (total `defaultTotal` without
 * it), by Newton on (log λh, log λa); null when prices are missing or the solve does not converge.
 */
export function impliedMeans(
  pHome: number | null,
  pAway: number | null,
  pOver: number | null,
  defaultTotal = 2.7,
): [number, number] | null {
  if (pHome === null || pAway === null || !(pHome > 0) || !(pAway > 0)) return null;
  const tSup = Math.log(pHome / pAway);
  const tOver = pOver !== null && pOver > 0 && pOver < 1 ? logit(pOver) : null;
  let x = Math.log(defaultTotal / 2) + 0.25 * Math.tanh(tSup);
  let y = Math.log(defaultTotal / 2) - 0.25 * Math.tanh(tSup);
  const resid = (u: number, v: number): [number, number] => {
    const [h, a, o] = priceOf(Math.exp(u), Math.exp(v));
    return [
      Math.log(h / a) - tSup,
      tOver === null ? Math.exp(u) + Math.exp(v) - defaultTotal : logit(o) - tOver,
    ];
  };
  const eps = 1e-5;
  for (let it = 0; it < 40; it++) {
    const [r1, r2] = resid(x, y);
    if (Math.abs(r1) < 1e-9 && Math.abs(r2) < 1e-9) return [Math.exp(x), Math.exp(y)];
    const [a1, a2] = resid(x + eps, y);
    const [b1, b2] = resid(x, y + eps);
    const j11 = (a1 - r1) / eps;
    const j21 = (a2 - r2) / eps;
    const j12 = (b1 - r1) / eps;
    const j22 = (b2 - r2) / eps;
    const det = j11 * j22 - j12 * j21;
    if (!Number.isFinite(det) || Math.abs(det) < 1e-14) return null;
    let dx = (j22 * r1 - j12 * r2) / det;
    let dy = (-j21 * r1 + j11 * r2) / det;
    const step = Math.max(Math.abs(dx), Math.abs(dy));
    if (step > 0.5) {
      dx *= 0.5 / step;
      dy *= 0.5 / step;
    }
    x -= dx;
    y -= dy;
    if (x < -5 || y < -5 || x > 2.5 || y > 2.5) return null;
  }
  const [r1, r2] = resid(x, y);
  return Math.abs(r1) < 1e-6 && Math.abs(r2) < 1e-6 ? [Math.exp(x), Math.exp(y)] : null;
}
