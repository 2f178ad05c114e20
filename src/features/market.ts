export type DemarginMethod = 'proportional' | 'power';

/**
 * De-margined probabilities of three decimal odds, null when one is missing or invalid. `power` solves
 * Σ (1/o_i)^k = 1, shrinking long shots more (the favourite-long-shot bias); `proportional` divides.
 */
export function demargin(
  home: number | null | undefined,
  draw: number | null | undefined,
  away: number | null | undefined,
  method: DemarginMethod = 'power',
): [number, number, number] | null {
  if (!valid(home) || !valid(draw) || !valid(away)) return null;
  const r0 = 1 / home;
  const r1 = 1 / draw;
  const r2 = 1 / away;
  const book = r0 + r1 + r2;
  if (method === 'proportional' || book <= 1) return [r0 / book, r1 / book, r2 / book];
  // Σ r_i^k − 1 is decreasing and convex in k: Newton from k = 1 converges monotonically in a few steps.
  const l0 = Math.log(r0);
  const l1 = Math.log(r1);
  const l2 = Math.log(r2);
  let k = 1;
  for (let it = 0; it < 50; it++) {
    const a = Math.exp(k * l0);
    const b = Math.exp(k * l1);
    const c = Math.exp(k * l2);
    const step = (a + b + c - 1) / (a * l0 + b * l1 + c * l2);
    k -= step;
    if (Math.abs(step) < 1e-13) break;
  }
  const p0 = r0 ** k;
  const p1 = r1 ** k;
  const p2 = r2 ** k;
  const s = p0 + p1 + p2;
  return [p0 / s, p1 / s, p2 / s];
}

/** Overround (book sum − 1), or null when any odd is missing. */
export function overround(
  home: number | null | undefined,
  draw: number | null | undefined,
  away: number | null | undefined,
): number | null {
  if (!valid(home) || !valid(draw) || !valid(away)) return null;
  return 1 / home + 1 / draw + 1 / away - 1;
}

/** De-margined (proportional) P(first outcome) of a two-way book, or null when a price is missing or not above 1. */
export function twoWay(a: number | null | undefined, b: number | null | undefined): number | null {
  if (typeof a !== 'number' || typeof b !== 'number' || !(a > 1) || !(b > 1)) return null;
  return 1 / a / (1 / a + 1 / b);
}

function valid(o: number | null | undefined): o is number {
  return typeof o === 'number' && Number.isFinite(o) && o > 1;
}

/** {@link demargin} of a book of any size (two-way O/U or BTTS, or three-way). */
export function demarginPrices(prices: readonly number[], method: DemarginMethod = 'power'): number[] | null {
  if (prices.length < 2 || !prices.every(valid)) return null;
  const r = prices.map((p) => 1 / p);
  const book = r.reduce((a, b) => a + b, 0);
  if (method === 'proportional' || book <= 1) return r.map((x) => x / book);
  const l = r.map(Math.log);
  let k = 1;
  for (let it = 0; it < 50; it++) {
    let f = -1;
    let d = 0;
    for (const li of l) {
      const e = Math.exp(k * li);
      f += e;
      d += e * li;
    }
    const step = f / d;
    k -= step;
    if (Math.abs(step) < 1e-13) break;
  }
  const p = r.map((x) => x ** k);
  const sum = p.reduce((a, b) => a + b, 0);
  return p.map((x) => x / sum);
}
