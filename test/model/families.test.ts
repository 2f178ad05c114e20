// One seam for every model family: the 1X2 classifiers and the goals score models
// are entries of one list, each fits, predicts and reads its state back through the same interface;
// a family added to the list is exercised here without a new test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_FAMILY,
  DEFAULT_GOALS_FAMILY,
  FAMILIES,
  GOALS_FAMILIES,
  goalsFamily,
  MODEL_FAMILIES,
  MODEL_FAMILY_NAMES,
  modelFamily,
} from '../../src/model/families/index.js';
import type { FitData } from '../../src/model/family.js';
import {
  buildGoalInputs,
  deserializeGoalsModel,
  predictGoals,
  serializeGoalsModel,
  trainGoalsModel,
} from '../../src/model/index.js';
import { rng } from '../features/league-fixture.js';
import { goalsLeague } from './goals-fixture.js';

const GOALS_AS_OF = new Date('2030-01-01T00:00:00Z');

function outcomeData(): FitData {
  const r = rng(3);
  const n = 400;
  const d = 2;
  const z = new Float64Array(n * d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    z[i * d] = r() * 2 - 1;
    z[i * d + 1] = r() * 2 - 1;
    const u = r() + 0.3 * z[i * d];
    y.push(u > 0.8 ? 0 : u > 0.45 ? 1 : 2);
  }
  const inputs = Array.from({ length: n }, (_, i) => z.slice(i * d, (i + 1) * d));
  return {
    design: { z, n, d },
    inputs,
    featureNames: ['a', 'b'],
    y,
    params: { l2: 0.01, marketOffset: false, maxIter: 200, gradTol: 1e-6 },
  };
}

test('one list holds every family; each kind has its own names, defaults and lookup', () => {
  const names = FAMILIES.map((f) => f.name);
  assert.equal(new Set(names).size, names.length, 'names are unique across kinds');
  assert.deepEqual(
    [...MODEL_FAMILIES, ...GOALS_FAMILIES].map((f) => f.name).sort(),
    [...names].sort(),
    'every family is of one kind',
  );
  assert.ok(MODEL_FAMILIES.every((f) => f.kind === '1x2'));
  assert.ok(GOALS_FAMILIES.every((f) => f.kind === 'goals'));
  assert.ok(!MODEL_FAMILY_NAMES.includes('dixon_coles_market' as never), 'no goals family in --family');
  assert.equal(DEFAULT_FAMILY, 'multinomial_logit');
  assert.equal(DEFAULT_GOALS_FAMILY, 'dixon_coles_market');
  // A name of the other kind (e.g. a goals artifact read as 1X2) is refused, as is an unknown name.
  assert.throws(() => modelFamily('dixon_coles_market'), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
  assert.throws(() => goalsFamily('multinomial_logit'), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
  assert.throws(() => goalsFamily('forest'), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
});

test('every family: fit, serialise as JSON, parse back, identical predictions; malformed state is a coded error', () => {
  const outcome = outcomeData();
  const goalInputs = buildGoalInputs(goalsLeague().matches, goalsLeague().odds, GOALS_AS_OF);
  for (const f of FAMILIES) {
    if (f.kind === '1x2') {
      const fam = modelFamily(f.name);
      const state = fam.fit(outcome);
      const back = fam.parse(JSON.parse(JSON.stringify(state)));
      for (let i = 0; i < 50; i++) {
        const z = outcome.design.z.subarray(i * 2, i * 2 + 2);
        const a = fam.predict(state, z, outcome.inputs[i]);
        assert.deepEqual(fam.predict(back, z, outcome.inputs[i]), a, f.name);
        assert.ok(Math.abs(a[0] + a[1] + a[2] - 1) < 1e-12, `${f.name} sums to 1`);
      }
    } else {
      const fam = goalsFamily(f.name);
      const state = fam.fit({ rows: goalInputs, params: { l2: 1e-3 } });
      const back = fam.parse(JSON.parse(JSON.stringify(state)));
      for (const input of goalInputs.slice(0, 50)) {
        const p = fam.predict(state, input);
        assert.deepEqual(fam.predict(back, input), p, f.name);
        assert.ok(p.lh > 0 && p.la > 0, `${f.name} positive means`);
      }
    }
    assert.throws(() => f.parse({}), { code: 'MC_ERR_MODEL_UNAVAILABLE' }, `${f.name} empty state`);
  }
});

test('a goals artifact written before `params` existed still loads and predicts identically', () => {
  const { matches, odds } = goalsLeague();
  const inputs = buildGoalInputs(matches, odds, GOALS_AS_OF);
  const model = trainGoalsModel(inputs, GOALS_AS_OF);
  assert.deepEqual(model.params, { l2: 1e-3 });
  const old = JSON.parse(serializeGoalsModel(model));
  delete old.params;
  const back = deserializeGoalsModel(JSON.stringify(old));
  assert.deepEqual(back.params, { l2: 1e-3 }, 'fitted with the defaults');
  for (const input of inputs.slice(0, 100))
    assert.deepEqual(predictGoals(back, input), predictGoals(model, input));
  // A goals artifact naming a 1X2 family, a newer layout, or bad params: coded errors.
  for (const bad of [
    { ...old, family: 'ordered_logit' },
    { ...old, format_version: 2 },
    { ...old, params: { l2: 'x' } },
  ]) {
    assert.throws(() => deserializeGoalsModel(JSON.stringify(bad)), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
  }
});
