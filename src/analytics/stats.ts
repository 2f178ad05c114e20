// Statistics for drift detection. Inputs are arrays of finite numbers: callers drop nulls first.

/** Arithmetic mean; null for no values. */
export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs) as number;
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) * (x - m), 0) / (xs.length - 1));
}

/** Ascending (a typed array sorts numerically, unlike Array#sort's default). */
export function sorted(xs: readonly number[]): Float64Array {
  return Float64Array.from(xs).sort();
}

/** Two-sample Kolmogorov–Smirnov statistic D = sup |F_a − F_b|. */
export function ksStatistic(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return Number.NaN;
  const x = sorted(a);
  const y = sorted(b);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i], y[j]);
    while (i < x.length && x[i] <= v) i++;
    while (j < y.length && y[j] <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  return d;
}

/** Asymptotic p-value of the two-sample KS test (Kolmogorov distribution with Stephens' correction). */
export function ksPValue(d: number, n: number, m: number): number {
  if (!Number.isFinite(d) || n === 0 || m === 0) return Number.NaN;
  const en = Math.sqrt((n * m) / (n + m));
  const lambda = (en + 0.12 + 0.11 / en) * d;
  if (lambda < 1e-3) return 1;
  let sum = 0;
  let sign = 1;
  for (let k = 1; k <= 100; k++) {
    const term = sign * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12) break;
    sign = -sign;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** Wasserstein-1 (earth mover's) distance between two empirical distributions: ∫ |F_a − F_b| dx. */
export function wasserstein1(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return Number.NaN;
  const x = sorted(a);
  const y = sorted(b);
  let i = 0;
  let j = 0;
  let prev = Math.min(x[0], y[0]);
  let dist = 0;
  while (i < x.length || j < y.length) {
    const v = j >= y.length || (i < x.length && x[i] <= y[j]) ? x[i] : y[j];
    dist += Math.abs(i / x.length - j / y.length) * (v - prev);
    prev = v;
    while (i < x.length && x[i] <= v) i++;
    while (j < y.length && y[j] <= v) j++;
  }
  return dist;
}

/** Jensen–Shannon distance (square root of the divergence, log base 2): 0 identical … 1 disjoint. */
export function jensenShannonDistance(p: readonly number[], q: readonly number[]): number {
  const sp = p.reduce((s, v) => s + v, 0);
  const sq = q.reduce((s, v) => s + v, 0);
  if (sp === 0 || sq === 0) return Number.NaN;
  let div = 0;
  for (let k = 0; k < p.length; k++) {
    const a = p[k] / sp;
    const b = q[k] / sq;
    const m = (a + b) / 2;
    if (a > 0) div += 0.5 * a * Math.log2(a / m);
    if (b > 0) div += 0.5 * b * Math.log2(b / m);
  }
  return Math.sqrt(Math.max(0, Math.min(1, div)));
}

/** Chi-squared test of homogeneity on a 2 × k table of counts; empty columns are dropped. */
export function chiSquaredHomogeneity(
  a: readonly number[],
  b: readonly number[],
): { statistic: number; df: number; pValue: number } {
  const na = a.reduce((s, v) => s + v, 0);
  const nb = b.reduce((s, v) => s + v, 0);
  const total = na + nb;
  let stat = 0;
  let cols = 0;
  for (let k = 0; k < a.length; k++) {
    const col = a[k] + b[k];
    if (col === 0) continue;
    cols++;
    const ea = (col * na) / total;
    const eb = (col * nb) / total;
    stat += (a[k] - ea) ** 2 / ea + (b[k] - eb) ** 2 / eb;
  }
  const df = cols - 1;
  if (na === 0 || nb === 0 || df < 1) return { statistic: 0, df: Math.max(df, 0), pValue: 1 };
  // P(X > stat) for X ~ χ²(df).
  return { statistic: stat, df, pValue: regularizedGammaQ(df / 2, stat / 2) };
}

function logGamma(z: number): number {
  // Lanczos approximation (g = 7, n = 9); accurate to ~1e-15 for z > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const zz = z - 1;
  let x = c[0];
  for (let i = 1; i < 9; i++) x += c[i] / (zz + i);
  const t = zz + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (zz + 0.5) * Math.log(t) - t + Math.log(x);
}

/** Upper regularized incomplete gamma Q(a, x) (series below a + 1, continued fraction above). */
function regularizedGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lnPre = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let del = sum;
    let ap = a;
    for (let n = 0; n < 500; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-14) break;
    }
    return Math.max(0, Math.min(1, 1 - sum * Math.exp(lnPre)));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-14) break;
  }
  return Math.max(0, Math.min(1, Math.exp(lnPre) * h));
}

/** Linear-interpolated quantile of already sorted values (q in [0, 1]). */
export function quantileSorted(xs: ArrayLike<number>, q: number): number {
  if (xs.length === 0) return Number.NaN;
  const pos = (xs.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo);
}
