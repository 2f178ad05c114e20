import {
  chiSquaredHomogeneity,
  jensenShannonDistance,
  ksPValue,
  ksStatistic,
  mean,
  quantileSorted,
  sorted,
  std,
  wasserstein1,
} from './stats.js';

/** A row of named values; null/undefined/non-finite = missing. */
export type ValueRow = Readonly<Record<string, unknown>>;

/** Thresholds of the drift tests; see docs/analytics.md for why these values. */
export const DEFAULT_DRIFT_THRESHOLDS = {
  /** Numeric: Wasserstein-1 distance divided by the reference std above which a feature may drift. */
  wassersteinNorm: 0.25,
  /** Categorical/binary: Jensen–Shannon distance (log 2) above which a feature may drift. */
  jensenShannon: 0.1,
  /** The difference must also be significant (KS or chi-squared p-value below this). */
  pValue: 0.01,
  /** Fewer non-missing values than this on either side: the feature is not tested. */
  minSamples: 30,
  /** Integer-valued features with at most this many levels are treated as categorical. */
  maxCategoricalLevels: 10,
};
export type DriftThresholds = typeof DEFAULT_DRIFT_THRESHOLDS;

/** Reference-vs-current histogram, as shares of each side's non-missing values. */
export interface Histogram {
  /** Bin labels (a level for categorical features, the bin's lower edge otherwise). */
  labels: string[];
  /** Bin edges (length labels + 1) for numeric features; empty for categorical ones. */
  edges: number[];
  reference: number[];
  current: number[];
}

/** A column's finite values (booleans as 0/1) and how many rows miss one. */
function values(rows: readonly ValueRow[], name: string): { xs: number[]; missing: number } {
  const xs = rows.flatMap((r) => {
    const v = r[name];
    return typeof v === 'number' && Number.isFinite(v) ? [v] : typeof v === 'boolean' ? [v ? 1 : 0] : [];
  });
  return { xs, missing: rows.length - xs.length };
}

function isCategorical(ref: readonly number[], cur: readonly number[], maxLevels: number): number[] | null {
  const levels = new Set<number>();
  for (const xs of [ref, cur]) {
    for (const x of xs) {
      if (!Number.isInteger(x)) return null;
      levels.add(x);
      if (levels.size > maxLevels) return null;
    }
  }
  return [...levels].sort((a, b) => a - b);
}

function shares(counts: readonly number[]): number[] {
  const n = counts.reduce((s, c) => s + c, 0);
  return counts.map((c) => (n > 0 ? c / n : 0));
}

function numericHistogram(ref: Float64Array, cur: Float64Array, bins: number): Histogram {
  // Clip to the 0.5–99.5 % range of both samples so a single outlier does not flatten the chart.
  const all = sorted([...ref, ...cur]);
  let lo = quantileSorted(all, 0.005);
  let hi = quantileSorted(all, 0.995);
  if (!(hi > lo)) {
    lo = all[0] - 0.5;
    hi = all[all.length - 1] + 0.5;
  }
  const width = (hi - lo) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + i * width);
  const count = (xs: Float64Array): number[] => {
    const c = new Array<number>(bins).fill(0);
    for (const x of xs) c[Math.min(bins - 1, Math.max(0, Math.floor((x - lo) / width)))]++;
    return c;
  };
  return {
    labels: edges.slice(0, -1).map((e) => formatNumber(e)),
    edges,
    reference: shares(count(ref)),
    current: shares(count(cur)),
  };
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 0.01 || a >= 1e5)) return x.toExponential(2);
  return String(Number(x.toFixed(3)));
}

function featureDrift(
  name: string,
  reference: readonly ValueRow[],
  current: readonly ValueRow[],
  thresholds: DriftThresholds,
) {
  const r = values(reference, name);
  const c = values(current, name);
  const levels = isCategorical(r.xs, c.xs, thresholds.maxCategoricalLevels);
  const kind = levels ? 'categorical' : 'numeric';
  const base = {
    feature: name,
    kind,
    n_reference: r.xs.length,
    n_current: c.xs.length,
    missing_reference: reference.length ? r.missing / reference.length : 0,
    missing_current: current.length ? c.missing / current.length : 0,
    mean_reference: mean(r.xs),
    mean_current: mean(c.xs),
    threshold: levels ? thresholds.jensenShannon : thresholds.wassersteinNorm,
  } as const;

  const idx = new Map(levels?.map((l, i) => [l, i]));
  const tally = (xs: readonly number[]) => {
    const n = new Array<number>(idx.size).fill(0);
    for (const x of xs) n[idx.get(x)!]++;
    return n;
  };
  const counts = levels && { ref: tally(r.xs), cur: tally(c.xs) };
  const histogram: Histogram = counts
    ? { labels: levels.map(String), edges: [], reference: shares(counts.ref), current: shares(counts.cur) }
    : r.xs.length && c.xs.length
      ? numericHistogram(sorted(r.xs), sorted(c.xs), 20)
      : { labels: [], edges: [], reference: [], current: [] };

  // Key order is the order of drift_latest.json's per-feature entries. `score`: normalised Wasserstein
  // (numeric) or Jensen–Shannon distance (categorical); `p_value`: KS or chi-squared.
  const verdict = (
    test: 'wasserstein_ks' | 'jensen_shannon_chi2' | 'none',
    score: number | null,
    p_value: number | null,
    ks_statistic: number | null,
    drifted: boolean,
    skipped: string | null,
  ) => ({ ...base, test, score, p_value, ks_statistic, drifted, skipped, histogram });
  if (r.xs.length < thresholds.minSamples || c.xs.length < thresholds.minSamples) {
    const skipped = `fewer than ${thresholds.minSamples} non-missing values (reference ${r.xs.length}, current ${c.xs.length})`;
    return verdict('none', null, null, null, false, skipped);
  }
  if (counts) {
    const js = jensenShannonDistance(counts.ref, counts.cur);
    const chi = chiSquaredHomogeneity(counts.ref, counts.cur);
    const drifted = js > thresholds.jensenShannon && chi.pValue < thresholds.pValue;
    return verdict('jensen_shannon_chi2', js, chi.pValue, null, drifted, null);
  }
  const sd = std(r.xs);
  const w = wasserstein1(r.xs, c.xs);
  // A constant reference has no spread to normalise by; the raw distance keeps the score finite (JSON).
  const wn = sd > 1e-12 ? w / sd : w;
  const d = ksStatistic(r.xs, c.xs);
  const p = ksPValue(d, r.xs.length, c.xs.length);
  return verdict('wasserstein_ks', wn, p, d, wn > thresholds.wassersteinNorm && p < thresholds.pValue, null);
}

/** Per-feature drift (pure); `drift_score` is the share of tested features that drifted. */
export function computeDrift(
  reference: readonly ValueRow[],
  current: readonly ValueRow[],
  featureNames: readonly string[],
  thresholds: Partial<DriftThresholds> = {},
) {
  const t = { ...DEFAULT_DRIFT_THRESHOLDS, ...thresholds };
  const features = featureNames.map((f) => featureDrift(f, reference, current, t));
  const tested = features.filter((f) => f.test !== 'none');
  const nDrifted = tested.filter((f) => f.drifted).length;
  return {
    drift_score: tested.length ? nDrifted / tested.length : null,
    n_features: tested.length,
    n_drifted: nDrifted,
    n_skipped: features.length - tested.length,
    features,
  };
}

export type FeatureDrift = ReturnType<typeof featureDrift>;
export type DriftSummary = ReturnType<typeof computeDrift>;
