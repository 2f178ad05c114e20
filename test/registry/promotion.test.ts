import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decidePromotion } from '../../src/registry/index.js';

test('no champion: the new version becomes candidate', () => {
  assert.equal(decidePromotion(1.02, null, 0.005).promote, true);
});

test('within the tolerance: candidate', () => {
  assert.equal(decidePromotion(0.97, 0.98, 0.005).promote, true, 'better');
  assert.equal(decidePromotion(0.984, 0.98, 0.005).promote, true, 'slightly worse');
  assert.equal(decidePromotion(0.985, 0.98, 0.005).promote, true, 'exactly at the limit');
});

test('outside the tolerance: no alias, with a reason', () => {
  const d = decidePromotion(0.9851, 0.98, 0.005);
  assert.equal(d.promote, false);
  assert.match(d.reason, /0\.98510 > champion 0\.98000/);
  assert.equal(decidePromotion(0.981, 0.98, 0).promote, false, 'zero tolerance');
  assert.equal(decidePromotion(Number.NaN, 0.98, 0.005).promote, false, 'no finite log loss');
});
