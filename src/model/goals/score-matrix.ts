import { MATRIX_SIZE, poissonPmf } from '../../features/index.js';

/** Dixon–Coles low-score factor τ(h, a): moves mass between 0-0/1-1 and 1-0/0-1 (ρ < 0: more 0-0, 1-1). */
export function dixonColesTau(h: number, a: number, lh: number, la: number, rho: number): number {
  if (h === 0 && a === 0) return 1 - lh * la * rho;
  if (h === 0 && a === 1) return 1 + lh * rho;
  if (h === 1 && a === 0) return 1 + la * rho;
  if (h === 1 && a === 1) return 1 - rho;
  return 1;
}

/** Largest |ρ| for which every τ stays positive at these means (the DC parameter space). */
export function rhoBounds(lh: number, la: number): [number, number] {
  const lo = Math.max(-1 / Math.max(lh, 1e-9), -1 / Math.max(la, 1e-9));
  const hi = Math.min(1 / Math.max(lh * la, 1e-9), 1);
  return [lo, hi];
}

/** The score matrix `m[h * MATRIX_SIZE + a]` of Dixon–Coles-corrected Poisson goals, summing to 1. */
export function scoreMatrix(lh: number, la: number, rho = 0): Float64Array {
  const ph = poissonPmf(lh);
  const pa = poissonPmf(la);
  const [lo, hi] = rhoBounds(lh, la);
  const r = Math.min(hi, Math.max(lo, rho));
  const m = new Float64Array(MATRIX_SIZE * MATRIX_SIZE);
  let s = 0;
  for (let h = 0; h < MATRIX_SIZE; h++) {
    for (let a = 0; a < MATRIX_SIZE; a++) {
      const v = ph[h] * pa[a] * (h < 2 && a < 2 ? dixonColesTau(h, a, lh, la, r) : 1);
      m[h * MATRIX_SIZE + a] = v;
      s += v;
    }
  }
  for (let i = 0; i < m.length; i++) m[i] /= s;
  return m;
}
