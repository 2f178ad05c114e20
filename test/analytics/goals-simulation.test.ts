import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickGoalsOdds, roiMarketsCsv, simulateBets, twoWayCandidate } from '../../src/analytics/index.js';
import type { OddsRecord } from '../../src/domain/index.js';

const base = (id: number) => ({ match_id: id, region_id: 1, region_name: 'Norland', season: '2022-2023' });

test('two-way markets run through the 1X2 simulation: same edge rule, never the empty third outcome', () => {
  const cands = [
    // edge on over: 0.6 × 2.0 − 1 = 0.2 > 0.05 → bet over, won → +1
    twoWayCandidate(base(1), 0.6, [2.0, 1.8], true),
    // edge on under: 0.7 × 1.9 − 1 = 0.33 → bet under, over happened → −1
    twoWayCandidate(base(2), 0.3, [2.2, 1.9], true),
    // no edge: 0.5 × 1.95 − 1 < 0.05 either way → no bet
    twoWayCandidate(base(3), 0.5, [1.95, 1.95], false),
  ];
  const sim = simulateBets(cands, { edgeThreshold: 0.05 });
  assert.equal(sim.model.total.n_bets, 2);
  assert.deepEqual(
    sim.model.bets.map((b) => [b.match_id, b.pick, b.profit]),
    [
      [1, 0, 1],
      [2, 1, -1],
    ],
  );
  assert.equal(sim.model.total.roi_pct, 0);
  // Baselines: favourite = lowest price of the two; "home" = always the first outcome (over / yes).
  assert.deepEqual(
    sim.baselines.favourite.bets.map((b) => b.pick),
    [1, 1, 0],
  );
  assert.ok(sim.baselines.home.bets.every((b) => b.pick === 0));
  for (const s of [sim.model, sim.baselines.favourite, sim.baselines.home]) {
    assert.ok(s.bets.every((b) => b.pick !== 2 && Number.isFinite(b.odd)));
  }
  const csv = roiMarketsCsv([{ market: 'ou25', sim }]);
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], 'market,strategy,region_name,roi_pct,n_bets,hit_rate,profit,region_id');
  assert.equal(lines[1], 'ou25,model,ALL,0,2,0.5,0,');
  assert.ok(lines.some((l) => l.startsWith('ou25,always_first,ALL,')));
});

test('odds picked: closing (falling back to the latest price) or opening; missing → no bet', () => {
  const rec = {
    match_id: 1,
    close_over25: 1.9,
    close_under25: 1.95,
    open_over25: 2.0,
    open_under25: 1.85,
    odd_btts_yes: 1.7,
    odd_btts_no: 2.1,
  } as unknown as OddsRecord;
  assert.deepEqual(pickGoalsOdds(rec, 'ou25', 'closing'), [1.9, 1.95]);
  assert.deepEqual(pickGoalsOdds(rec, 'ou25', 'opening'), [2.0, 1.85]);
  assert.deepEqual(pickGoalsOdds(rec, 'btts', 'closing'), [1.7, 2.1]);
  assert.equal(pickGoalsOdds(rec, 'btts', 'opening'), null);
});
