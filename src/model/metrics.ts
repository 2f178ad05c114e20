import type { Probabilities } from '../domain/index.js';
import { predictedClass } from '../domain/index.js';

const EPS = 1e-15;

/** Mean negative log-likelihood of the true class (probabilities clipped at 1e-15). */
export function logLoss(probs: readonly Probabilities[], labels: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < probs.length; i++) s -= Math.log(Math.max(EPS, probs[i][labels[i]]));
  return s / probs.length;
}

/** Ranked probability score: mean over matches of ½ Σ_k (cumulative forecast − cumulative outcome)². */
export function rps(probs: readonly Probabilities[], labels: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i];
    const y = labels[i];
    const c1 = p[0] - (y === 0 ? 1 : 0);
    const c2 = p[0] + p[1] - (y <= 1 ? 1 : 0);
    s += (c1 * c1 + c2 * c2) / 2;
  }
  return s / probs.length;
}

/** Multi-class Brier score: mean over matches of Σ_k (p_k − o_k)² — NOT divided by 3 (range 0..2). */
export function brier(probs: readonly Probabilities[], labels: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < probs.length; i++) {
    for (let k = 0; k < 3; k++) {
      const d = probs[i][k] - (labels[i] === k ? 1 : 0);
      s += d * d;
    }
  }
  return s / probs.length;
}

/** Share of matches whose most probable outcome (ties to the lower class) happened. */
export function accuracy(probs: readonly Probabilities[], labels: readonly number[]): number {
  let c = 0;
  for (let i = 0; i < probs.length; i++) if (predictedClass(probs[i]) === labels[i]) c++;
  return c / probs.length;
}

/** Macro-average one-vs-rest ROC AUC (Mann–Whitney, ties count ½); a class without both signs is skipped. */
export function rocAucOvr(probs: readonly Probabilities[], labels: readonly number[]): number {
  const aucs = [0, 1, 2].map((k) => binaryAuc(probs, labels, k)).filter((auc) => !Number.isNaN(auc));
  return aucs.length ? aucs.reduce((s, auc) => s + auc, 0) / aucs.length : Number.NaN;
}

function binaryAuc(probs: readonly Probabilities[], labels: readonly number[], k: number): number {
  const scores = probs.map((p) => p[k]);
  const positive = labels.map((y) => y === k);
  const idx = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  const nPos = positive.filter(Boolean).length;
  const nNeg = positive.length - nPos;
  if (nPos === 0 || nNeg === 0) return Number.NaN;
  let rankSum = 0;
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1]] === scores[idx[i]]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) if (positive[idx[t]]) rankSum += avgRank;
    i = j + 1;
  }
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/** The five registry metrics plus the sample size. */
export interface MetricSet {
  log_loss: number;
  rps: number;
  brier: number;
  roc_auc_ovr: number;
  accuracy: number;
  n: number;
}

/** Every metric is NaN when `probs` is empty (0 / 0). */
export function computeMetrics(probs: readonly Probabilities[], labels: readonly number[]): MetricSet {
  return {
    log_loss: logLoss(probs, labels),
    rps: rps(probs, labels),
    brier: brier(probs, labels),
    roc_auc_ovr: rocAucOvr(probs, labels),
    accuracy: accuracy(probs, labels),
    n: probs.length,
  };
}
