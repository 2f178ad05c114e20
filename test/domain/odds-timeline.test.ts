import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type OddsObservation,
  OddsTimeline,
  OPENING_LEAD_MS,
  oddsImplausibility,
} from '../../src/domain/index.js';

const obs = (
  id: number,
  at: number,
  kind: OddsObservation['kind'],
  p: number,
  market: OddsObservation['market'] = '1x2',
) => ({
  match_id: id,
  market,
  kind,
  observed_at: new Date(at),
  prices: market === '1x2' ? [p, 3.4, 4] : [p, 1.9],
  source: 's',
});

test('latest(m, k, t) is the newest observation made at or before t, never a later one', () => {
  const t = OddsTimeline.from([
    obs(1, 300, 'closing', 2.3),
    obs(1, 100, 'opening', 2.1),
    obs(1, 200, 'intermediate', 2.2),
    obs(1, 150, 'opening', 1.9, 'ou25'),
    obs(2, 100, 'opening', 5),
  ]);
  assert.equal(t.size, 5);
  assert.equal(t.latest(1, '1x2', 99), null);
  assert.equal(t.latest(1, '1x2', 100)?.prices[0], 2.1);
  assert.equal(t.latest(1, '1x2', 299)?.prices[0], 2.2);
  assert.equal(t.latest(1, '1x2', new Date(300))?.prices[0], 2.3);
  assert.equal(t.latest(1, '1x2', 1e15)?.kind, 'closing');
  assert.equal(t.latest(1, 'btts', 1e15), null);
  assert.equal(t.latest(1, 'ou25', 150)?.prices[0], 1.9);
  assert.equal(t.latest(3, '1x2', 1e15), null);
  assert.equal(t.opening(1, '1x2')?.prices[0], 2.1);
  assert.equal(t.closing(1, '1x2')?.prices[0], 2.3);
  assert.equal(t.last(2, '1x2')?.prices[0], 5);
  // Adding a later observation never changes an earlier answer.
  const later = OddsTimeline.from([
    ...[1, 2, 3].map((i) => obs(1, i * 100, 'intermediate', 2 + i / 10)),
    obs(1, 250, 'intermediate', 9),
  ]);
  assert.equal(later.latest(1, '1x2', 200)?.prices[0], 2.2);
});

test('fromRecords: opening at kick-off − OPENING_LEAD_MS, closing at kick-off; incomplete triples are not observations', () => {
  const k = Date.UTC(2022, 0, 1, 15);
  const base = { odd_home: 2, odd_draw: 3, odd_away: 4, source: 'x' };
  const t = OddsTimeline.fromRecords(
    [
      {
        ...base,
        match_id: 1,
        open_home: 2,
        open_draw: 3,
        open_away: 4,
        close_home: 2.1,
        close_draw: 3,
        close_away: 3.9,
      },
      {
        ...base,
        match_id: 2,
        open_home: 2,
        open_draw: null,
        open_away: 4,
        close_home: null,
        close_draw: null,
        close_away: null,
      },
    ],
    new Map([
      [1, new Date(k)],
      [2, new Date(k)],
    ]),
  );
  assert.equal(t.opening(1, '1x2')?.observed_at.getTime(), k - OPENING_LEAD_MS);
  assert.equal(t.closing(1, '1x2')?.observed_at.getTime(), k);
  assert.equal(t.latest(1, '1x2', k - 1)?.kind, 'opening');
  assert.equal(t.of(2, '1x2').length, 0);
});

test('plausibility: one place for the bounds of 1X2 and two-way books', () => {
  assert.equal(oddsImplausibility('1x2', [2.1, 3.4, 3.6]), null);
  assert.equal(oddsImplausibility('ou25', [1.9, 1.95]), null);
  for (const bad of [
    [1e308, 3.4, 3.6],
    [Number.NaN, 3.4, 3.6],
    [Number.POSITIVE_INFINITY, 3.4, 3.6],
    [-2, 3.4, 3.6],
    [1, 3.4, 3.6],
    [1.2, 1.3, 1.4],
    [20, 30, 40],
  ])
    assert.ok(oddsImplausibility('1x2', bad), String(bad));
  assert.ok(oddsImplausibility('btts', [1.05, 1.06]));
  assert.ok(oddsImplausibility('btts', [3, 3]), 'a two-way book summing to 0.67');
});
