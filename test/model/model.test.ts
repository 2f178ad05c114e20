import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMatchcastError } from '../../src/domain/index.js';
import type { MultinomialState } from '../../src/model/families/multinomial-logit.js';
import {
  deserializeModel,
  MODEL_FORMAT_VERSION,
  predictProba,
  serializeModel,
} from '../../src/model/index.js';
import { trainModel } from '../../src/model/model.js';
import { rng } from '../features/league-fixture.js';

/** Gaussian features and labels drawn from a known multinomial logit (class 0 is the reference). */
function synthetic(n: number, seed: number) {
  const r = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-300)) * Math.cos(2 * Math.PI * r());
  // Scores relative to class 0: s1 = -0.3 + 0.8 x0 - 0.5 x1, s2 = -0.6 - 1.2 x0 + 0.4 x1
  const truth = (x: Float64Array): [number, number, number] => {
    const s1 = -0.3 + 0.8 * x[0] - 0.5 * x[1];
    const s2 = -0.6 - 1.2 * x[0] + 0.4 * x[1];
    const t = 1 + Math.exp(s1) + Math.exp(s2);
    return [1 / t, Math.exp(s1) / t, Math.exp(s2) / t];
  };
  const X: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = Float64Array.from([gauss(), gauss(), i % 11 === 0 ? Number.NaN : gauss()]);
    const p = truth(x);
    const u = r();
    X.push(x);
    y.push(u < p[0] ? 0 : u < p[0] + p[1] ? 1 : 2);
  }
  return { X, y, truth };
}

test('multinomial logistic regression recovers known coefficients', () => {
  const { X, y } = synthetic(20_000, 7);
  const m = trainModel(X, y, { featureNames: ['a', 'b', 'noise'], l2: 1e-8 });
  assert.equal(m.family, 'multinomial_logit');
  if (m.family !== 'multinomial_logit') return;
  const pre = m.preprocessor;
  // Back to raw units: coefficient / scale; differences to class 0 are identified.
  const { coef } = m.state as MultinomialState;
  const raw = (k: number, j: number) => coef[k][j + 1] / pre.scales[j];
  const cases: Array<[number, number, number]> = [
    [1, 0, 0.8],
    [1, 1, -0.5],
    [2, 0, -1.2],
    [2, 1, 0.4],
    [1, 2, 0],
    [2, 2, 0],
  ];
  for (const [k, j, want] of cases) {
    const got = raw(k, j) - raw(0, j);
    assert.ok(Math.abs(got - want) < 0.08, `class ${k} feature ${j}: ${got} vs ${want}`);
  }
});

test('predictions match the generating probabilities', () => {
  const { X, y, truth } = synthetic(20_000, 11);
  const m = trainModel(X, y, { featureNames: ['a', 'b', 'noise'] });
  for (const x of synthetic(200, 99).X) {
    const p = predictProba(m, x);
    const t = truth(x);
    assert.ok(Math.abs(p[0] + p[1] + p[2] - 1) < 1e-12);
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(p[k] - t[k]) < 0.04, `${p} vs ${t}`);
  }
});

test('ordered logit: valid probabilities, monotone in the latent strength', () => {
  const { X, y } = synthetic(5_000, 3);
  const m = trainModel(X, y, { featureNames: ['a', 'b', 'noise'], family: 'ordered_logit' });
  assert.equal(m.family, 'ordered_logit');
  const lo = predictProba(m, Float64Array.from([-2, 0, 0]));
  const hi = predictProba(m, Float64Array.from([2, 0, 0]));
  for (const p of [lo, hi]) {
    assert.ok(p.every((v) => v > 0 && v < 1));
    assert.ok(Math.abs(p[0] + p[1] + p[2] - 1) < 1e-12);
  }
  // x0 favours the home win (class 0) in the generating model.
  assert.ok(hi[0] > lo[0] && hi[2] < lo[2]);
});

test('serialise / deserialise reproduces predictions bit for bit (both families)', () => {
  const { X, y } = synthetic(3_000, 5);
  const variants = [
    { family: 'multinomial_logit' as const },
    { family: 'ordered_logit' as const },
    // Market offset: the first two inputs play the market log-odds.
    {
      family: 'multinomial_logit' as const,
      marketOffset: true,
      names: ['mkt_logit_home_away', 'mkt_log_draw_away', 'x'],
    },
  ];
  for (const v of variants) {
    const m = trainModel(X, y, { featureNames: v.names ?? ['a', 'b', 'noise'], ...v });
    if (v.marketOffset)
      assert.ok(m.family === 'multinomial_logit' && (m.state as MultinomialState).offset_inputs !== null);
    const json = serializeModel(m);
    const back = deserializeModel(json);
    assert.equal(back.format_version, MODEL_FORMAT_VERSION);
    assert.equal(serializeModel(back), json);
    for (const x of [...X.slice(0, 500), Float64Array.from([Number.NaN, Number.NaN, Number.NaN])]) {
      const a = predictProba(m, x);
      const b = predictProba(back, x);
      for (let k = 0; k < 3; k++) assert.ok(Object.is(a[k], b[k]), `${a[k]} !== ${b[k]}`);
    }
  }
});

test('deserialising an unknown format fails with MC_ERR_MODEL_UNAVAILABLE', () => {
  for (const bad of ['{', '{"format_version": 999}', '{"format_version": 1, "family": "forest"}']) {
    assert.throws(
      () => deserializeModel(bad),
      (e: unknown) => isMatchcastError(e, 'MC_ERR_MODEL_UNAVAILABLE'),
    );
  }
});

test('training is deterministic', () => {
  const { X, y } = synthetic(3_000, 13);
  const a = serializeModel(trainModel(X, y, { featureNames: ['a', 'b', 'noise'] }));
  const b = serializeModel(trainModel(X, y, { featureNames: ['a', 'b', 'noise'] }));
  assert.equal(a, b);
});

test('missing values are imputed, with an indicator, and wrong input length is rejected', () => {
  const { X, y } = synthetic(2_000, 17);
  const m = trainModel(X, y, { featureNames: ['a', 'b', 'noise'] });
  assert.deepEqual(m.preprocessor.indicators, [2]);
  const p = predictProba(m, Float64Array.from([0, 0, Number.NaN]));
  assert.ok(p.every(Number.isFinite));
  assert.throws(
    () => predictProba(m, Float64Array.from([0, 0])),
    (e: unknown) => isMatchcastError(e, 'MC_ERR_VALIDATION'),
  );
});

test('a warm start reaches the same optimum', () => {
  const { X, y } = synthetic(4_000, 19);
  const names = ['a', 'b', 'noise'];
  const other = trainModel(X.slice(0, 1_000), y.slice(0, 1_000), { featureNames: names });
  const cold = trainModel(X, y, { featureNames: names });
  const warm = trainModel(X, y, { featureNames: names }, undefined, other);
  for (const x of X.slice(0, 200)) {
    const a = predictProba(cold, x);
    const b = predictProba(warm, x);
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(a[k] - b[k]) < 1e-4, `${a[k]} vs ${b[k]}`);
  }
});
