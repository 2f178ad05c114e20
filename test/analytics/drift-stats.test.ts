import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeDrift } from '../../src/analytics/drift.js';
import {
  chiSquaredHomogeneity,
  jensenShannonDistance,
  ksPValue,
  ksStatistic,
  wasserstein1,
} from '../../src/analytics/stats.js';

/** Deterministic PRNG (mulberry32) and a normal sampler. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

test('KS statistic, p-value and Wasserstein distance on known cases', () => {
  assert.equal(ksStatistic([1, 2, 3], [1, 2, 3]), 0);
  assert.equal(ksStatistic([1, 2, 3], [4, 5, 6]), 1);
  assert.ok(Math.abs(ksStatistic([1, 2, 3, 4], [3, 4, 5, 6]) - 0.5) < 1e-12);
  // Same distribution → large p; disjoint samples of 50 → tiny p.
  assert.ok(ksPValue(0.05, 200, 200) > 0.9);
  assert.ok(ksPValue(1, 50, 50) < 1e-10);
  // scipy.stats.kstwo-style reference: D = 0.2, n = m = 100 → p ≈ 0.037 (asymptotic)
  const p = ksPValue(0.2, 100, 100);
  assert.ok(p > 0.02 && p < 0.06, String(p));
  assert.ok(Math.abs(wasserstein1([0, 1, 2], [1, 2, 3]) - 1) < 1e-12);
  assert.ok(Math.abs(wasserstein1([0, 0], [1, 1]) - 1) < 1e-12);
  assert.equal(wasserstein1([5, 1, 3], [3, 5, 1]), 0);
});

test('Jensen–Shannon distance and chi-squared p-values', () => {
  assert.equal(jensenShannonDistance([10, 10], [5, 5]), 0);
  assert.ok(Math.abs(jensenShannonDistance([1, 0], [0, 1]) - 1) < 1e-12);
  const same = chiSquaredHomogeneity([50, 50], [50, 50]);
  assert.equal(same.statistic, 0);
  assert.equal(same.pValue, 1);
  // 2×2 table [[30,70],[50,50]]: χ² = 8.333, df 1, p ≈ 0.00389
  const t = chiSquaredHomogeneity([30, 70], [50, 50]);
  assert.ok(Math.abs(t.statistic - 8.3333) < 1e-3);
  assert.ok(Math.abs(t.pValue - 0.003892) < 1e-4, String(t.pValue));
  // df 3, χ² = 7.815 is the 5 % critical value
  const df3 = chiSquaredHomogeneity([25, 25, 25, 25], [25, 25, 25, 25]);
  assert.equal(df3.df, 3);
});

test('computeDrift flags the shifted numeric and binary columns only', () => {
  const r = rng(7);
  const mk = (n: number, shift: boolean) =>
    Array.from({ length: n }, () => ({
      a: normal(r),
      b: normal(r) * 2 + 5 + (shift ? 1 : 0),
      c: r() < (shift ? 0.6 : 0.3) ? 1 : 0,
      d: r() < 0.5 ? 1 : 0,
      e: r() < 0.1 ? null : normal(r),
    }));
  const ref = mk(3000, false);
  const features = ['a', 'b', 'c', 'd', 'e'];
  const shifted = computeDrift(ref, mk(300, true), features);
  const drifted = shifted.features.filter((f) => f.drifted).map((f) => f.feature);
  assert.deepEqual(drifted, ['b', 'c']);
  assert.equal(shifted.drift_score, 2 / 5);
  assert.equal(shifted.features.find((f) => f.feature === 'c')!.kind, 'categorical');
  assert.equal(shifted.features.find((f) => f.feature === 'a')!.kind, 'numeric');

  const none = computeDrift(ref, mk(300, false), features);
  assert.equal(none.n_drifted, 0);
  assert.equal(none.drift_score, 0);
});

test('too few current values: the feature is not tested and does not count', () => {
  const ref = Array.from({ length: 100 }, (_, i) => ({ x: i, y: i % 2 }));
  const cur = Array.from({ length: 10 }, (_, i) => ({ x: i + 1000, y: i % 2 }));
  const s = computeDrift(ref, cur, ['x', 'y'], { minSamples: 30 });
  assert.equal(s.n_features, 0);
  assert.equal(s.n_skipped, 2);
  assert.equal(s.drift_score, null);
  assert.ok(s.features.every((f) => f.test === 'none' && !f.drifted));
});
