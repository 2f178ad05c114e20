/** mulberry32: a small seeded PRNG, uniform in [0, 1); same seed, same sequence on every platform. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile interval of the mean of `d` over seeded resamples of its entries; [NaN, NaN] when empty. */
export function bootstrapInterval(
  d: readonly number[],
  { resamples, level, seed }: { resamples: number; level: number; seed: number },
): [number, number] {
  const n = d.length;
  if (n === 0) return [Number.NaN, Number.NaN];
  const rand = mulberry32(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rand() * n)];
    means[b] = s / n;
  }
  means.sort();
  const q = (p: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(p * resamples)))];
  const tail = (1 - level) / 2;
  return [q(tail), q(1 - tail)];
}
