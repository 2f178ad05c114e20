// Explanations of every 1X2 family add up to its own prediction: softmax with and without the market
// offset, the ordered logit's latent score with its cut points; groups follow the feature groups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODEL_FAMILY_NAMES } from '../../src/model/families/index.js';
import { explainModel, predictProba } from '../../src/model/index.js';
import { trainModel } from '../../src/model/model.js';
import { rng } from '../features/league-fixture.js';

const NAMES = [
  'elo_home',
  'elo_away',
  'form_points_home',
  'mkt_logit_home_away',
  'mkt_log_draw_away',
  'no_such_input',
];

function data(n = 500): { X: Float64Array[]; y: number[] } {
  const r = rng(11);
  const X: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = r() * 2 - 1;
    const x = Float64Array.from([1500 + 200 * s, 1500 - 100 * r(), r() * 3, s * 1.5, -0.3 + r() * 0.2, r()]);
    if (i % 9 === 0) x[2] = Number.NaN; // a missing input gets an indicator
    X.push(x);
    const u = r() + 0.35 * s;
    y.push(u > 0.75 ? 0 : u > 0.45 ? 1 : 2);
  }
  return { X, y };
}

test('every 1X2 family explains its predictions exactly, grouped by feature group', () => {
  const { X, y } = data();
  const variants = [
    ...MODEL_FAMILY_NAMES.map((family) => ({ family, marketOffset: false })),
    { family: 'multinomial_logit' as const, marketOffset: true },
  ];
  for (const v of variants) {
    const model = trainModel(X, y, { ...v, featureNames: NAMES });
    assert.ok(model.preprocessor.indicators.length > 0);
    for (const x of X.slice(0, 40)) {
      const p = predictProba(model, x);
      const ex = explainModel(model, x);
      for (let k = 0; k < 3; k++) assert.ok(Math.abs(ex.probabilities[k] - p[k]) < 1e-12, v.family);
      assert.deepEqual(
        ex.groups.map((g) => g.group),
        ['elo', 'form', 'market', 'other'],
      );
      assert.ok(ex.groups.find((g) => g.group === 'form')?.columns.includes('form_points_home_missing'));
      if (ex.link === 'softmax') {
        assert.equal(ex.offset !== null, v.marketOffset);
        if (v.marketOffset) assert.deepEqual(ex.offset, [x[3], x[4], 0]);
      } else {
        assert.equal(v.family, 'ordered_logit');
        assert.ok(ex.cut_points && ex.cut_points[0] < ex.cut_points[1]);
      }
    }
  }
});
