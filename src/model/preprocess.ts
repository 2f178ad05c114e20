/** Fitted preprocessing: median imputation, missing indicators, standardisation (JSON-serialisable). */
export interface Preprocessor {
  /** Median of each input feature's finite training values (0 when none). */
  medians: number[];
  /** Input feature indices that get a 0/1 missing indicator (one per distinct missingness pattern). */
  indicators: number[];
  /** Mean and scale of each output column (inputs then indicators), after imputation. */
  means: number[];
  scales: number[];
}

export function preprocessedWidth(p: Preprocessor): number {
  return p.medians.length + p.indicators.length;
}

/** Fits the preprocessor on training inputs (rows of equal length, NaN = missing). */
export function fitPreprocessor(X: readonly Float64Array[], missingIndicators: boolean): Preprocessor {
  const n = X.length;
  const d = n > 0 ? X[0].length : 0;
  const medians: number[] = [];
  const indicators: number[] = [];
  const masks: Uint8Array[] = [];
  const col = new Float64Array(n);
  for (let j = 0; j < d; j++) {
    let cnt = 0;
    const mask = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = X[i][j];
      if (Number.isNaN(v)) mask[i] = 1;
      else col[cnt++] = v;
    }
    const vals = col.subarray(0, cnt).sort();
    const mid = cnt >> 1;
    medians.push(cnt === 0 ? 0 : cnt % 2 ? vals[mid] : (vals[mid - 1] + vals[mid]) / 2);
    const missing = n - cnt;
    if (missingIndicators && missing > 0 && missing < n) {
      // Features missing together (all form columns of a team's first match) share one indicator.
      if (!masks.some((m) => m.every((v, i) => v === mask[i]))) {
        masks.push(mask);
        indicators.push(j);
      }
    }
  }
  const p: Preprocessor = { medians, indicators, means: [], scales: [] };
  const w = preprocessedWidth(p);
  const sum = new Float64Array(w);
  const sq = new Float64Array(w);
  const z = new Float64Array(w);
  for (let i = 0; i < n; i++) {
    rawTransform(p, X[i], z);
    for (let k = 0; k < w; k++) {
      sum[k] += z[k];
      sq[k] += z[k] * z[k];
    }
  }
  for (let k = 0; k < w; k++) {
    const mean = n > 0 ? sum[k] / n : 0;
    const v = n > 0 ? sq[k] / n - mean * mean : 0;
    p.means.push(mean);
    p.scales.push(v > 1e-12 ? Math.sqrt(v) : 1);
  }
  return p;
}

function rawTransform(p: Preprocessor, x: ArrayLike<number>, out: Float64Array): void {
  const d = p.medians.length;
  for (let j = 0; j < d; j++) {
    const v = x[j];
    out[j] = Number.isNaN(v) ? p.medians[j] : v;
  }
  for (let k = 0; k < p.indicators.length; k++) out[d + k] = Number.isNaN(x[p.indicators[k]]) ? 1 : 0;
}

/** Imputes, adds indicators and standardises one input into `out` (allocated when omitted). */
export function transform(p: Preprocessor, x: ArrayLike<number>, out?: Float64Array): Float64Array {
  const z = out ?? new Float64Array(preprocessedWidth(p));
  rawTransform(p, x, z);
  for (let k = 0; k < z.length; k++) z[k] = (z[k] - p.means[k]) / p.scales[k];
  return z;
}
