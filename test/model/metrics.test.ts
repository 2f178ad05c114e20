import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Probabilities } from '../../src/domain/index.js';
import { brier, logLoss, rps } from '../../src/model/index.js';
import { accuracy, computeMetrics, rocAucOvr } from '../../src/model/metrics.js';

const P: Probabilities[] = [
  [0.5, 0.3, 0.2],
  [0.2, 0.3, 0.5],
  [0.6, 0.3, 0.1],
];
const Y = [0, 1, 2];
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);

test('log loss by hand', () => {
  close(logLoss(P, Y), -(Math.log(0.5) + Math.log(0.3) + Math.log(0.1)) / 3);
  assert.ok(Number.isFinite(logLoss([[1, 0, 0]], [2])), 'clipped, not infinite');
});

test('RPS by hand (ordered home, draw, away)', () => {
  // Match 1: cum forecast (0.5, 0.8) vs (1, 1): (0.25 + 0.04)/2 = 0.145
  // Match 2: (0.2, 0.5) vs (0, 1): (0.04 + 0.25)/2 = 0.145
  // Match 3: (0.6, 0.9) vs (0, 0): (0.36 + 0.81)/2 = 0.585
  close(rps(P, Y), (0.145 + 0.145 + 0.585) / 3);
  close(rps([[1, 0, 0]], [0]), 0);
  close(rps([[1, 0, 0]], [2]), 1);
});

test('Brier is the multi-class sum of squares, not divided by 3', () => {
  // 0.25+0.09+0.04 = 0.38; 0.04+0.49+0.25 = 0.78; 0.36+0.09+0.81 = 1.26
  close(brier(P, Y), (0.38 + 0.78 + 1.26) / 3);
  close(brier([[0, 0, 1]], [0]), 2);
});

test('accuracy: argmax with ties to the lower class', () => {
  close(accuracy(P, Y), 1 / 3);
  close(accuracy([[0.4, 0.4, 0.2]], [0]), 1);
});

test('macro one-vs-rest ROC AUC by hand', () => {
  // Class 0 scores: pos {0.5}, neg {0.2, 0.6} → 1 of 2 pairs → 0.5
  // Class 1 scores: pos {0.3}, neg {0.3, 0.3} → ties → 0.5
  // Class 2 scores: pos {0.1}, neg {0.2, 0.5} → 0
  close(rocAucOvr(P, Y), (0.5 + 0.5 + 0) / 3);
  const perfect: Probabilities[] = [
    [0.8, 0.1, 0.1],
    [0.1, 0.8, 0.1],
    [0.1, 0.1, 0.8],
  ];
  close(rocAucOvr(perfect, Y), 1);
});

test('computeMetrics bundles all with n', () => {
  const m = computeMetrics(P, Y);
  assert.equal(m.n, 3);
  close(m.log_loss, logLoss(P, Y));
  assert.ok(Number.isNaN(computeMetrics([], []).log_loss));
});
