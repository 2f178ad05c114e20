/** A small seeded PRNG (mulberry32): same seed, same sequence, on every platform. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    // Any finite number is accepted; fractional seeds are folded into 32 bits.
    this.state = Math.floor(seed * 2654435761) >>> 0 || 0x9e3779b9;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Standard normal (Box–Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** By inversion: one uniform per draw, so changing a rate never shifts the rest of the sequence. */
  poisson(lambda: number): number {
    const u = this.next();
    let k = 0;
    let p = Math.exp(-lambda);
    let cdf = p;
    while (u > cdf && k < 50) {
      k++;
      p *= lambda / k;
      cdf += p;
    }
    return k;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
