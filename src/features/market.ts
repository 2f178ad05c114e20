export type DemarginMethod = 'proportional' | 'power';

type Odd = number | null | undefined;

/**
 * De-margined probabilities of three decimal odds, null when one is missing or invalid. `power` solves
 * Σ (1/o_i)^k = 1, shrinking long shots more (the favourite-long-shot bias); `proportional` divides.
 */
export function demargin(
  home: Odd,
  draw: Odd,
  away: Odd,
  method: DemarginMethod = 'power',
): [number, number, number] | null {
  return demarginPrices([home, draw, away], method) as [number, number, number] | null;
}

/** Overround (book sum − 1), or null when any odd is missing. */
export function overround(home: Odd, draw: Odd, away: Odd): number | null {
  if (!valid(home) || !valid(draw) || !valid(away)) return null;
  return 1 / home + 1 / draw + 1 / away - 1;
}

/** De-margined (proportional) P(first outcome) of a two-way book, or null when a price is missing or not above 1. */
export function twoWay(a: Odd, b: Odd): number | null {
  if (typeof a !== 'number' || typeof b !== 'number' || !(a > 1) || !(b > 1)) return null;
  return 1 / a / (1 / a + 1 / b);
}

function valid(o: Odd): o is number {
  return typeof o === 'number' && Number.isFinite(o) && o > 1;
}

/** {@link demargin} of a book of any size (two-way O/U or BTTS, or three-way). */
export function demarginPrices(prices: readonly Odd[], method: DemarginMethod = 'power'): number[] | null {
  if (prices.length < 2 || !prices.every(valid)) return null;
  const r = prices.map((p) => 1 / p);
  const book = r.reduce((a, b) => a + b, 0);
  if (method === 'proportional' || book <= 1) return r.map((x) => x / book);
  // Σ r_i^k − 1 is decreasing and convex in k: Newton from k = 1 converges monotonically in a few steps.
  const l = r.map(Math.log);
  let k = 1;
  for (let it = 0; it < 50; it++) {
    let f = 0;
    let d = 0;
    for (const li of l) {
      const e = Math.exp(k * li);
      f += e;
      d += e * li;
    }
    const step = (f - 1) / d;
    k -= step;
    if (Math.abs(step) < 1e-13) break;
  }
  const p = r.map((x) => x ** k);
  const sum = p.reduce((a, b) => a + b, 0);
  return p.map((x) => x / sum);
}
