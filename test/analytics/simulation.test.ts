import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roiBaselinesCsv, roiByRegionCsv } from '../../src/analytics/roi-csv.js';
import {
  type BetCandidate,
  pickFor,
  pickOdds,
  selectCandidates,
  simulateBets,
} from '../../src/analytics/simulation.js';
import type { OddsRecord } from '../../src/domain/index.js';

function cand(
  id: number,
  proba: [number, number, number],
  odds: [number, number, number],
  outcome: 0 | 1 | 2,
  region = 1,
  season = '2021-2022',
): BetCandidate {
  return { match_id: id, region_id: region, region_name: `R${region}`, season, outcome, proba, odds };
}

function odds(id: number, partial: Partial<OddsRecord>): OddsRecord {
  return {
    match_id: id,
    odd_home: null,
    odd_draw: null,
    odd_away: null,
    open_home: null,
    open_draw: null,
    open_away: null,
    close_home: null,
    close_draw: null,
    close_away: null,
    source: 'test',
    ...partial,
  };
}

test('edge rule: bets the largest edge only when it is strictly above the threshold', () => {
  const edgeStrategy = (threshold: number) => (c: BetCandidate) =>
    pickFor('model', c.proba, c.odds, threshold);
  const s = edgeStrategy(0.05);
  // edges: 0.5*2.2-1 = 0.10, 0.3*3-1 = -0.1, 0.2*4-1 = -0.2 → home
  assert.equal(s(cand(1, [0.5, 0.3, 0.2], [2.2, 3, 4], 0)), 0);
  // edges 0.04, … → below threshold
  assert.equal(s(cand(2, [0.52, 0.28, 0.2], [2.0, 3, 4], 0)), null);
  // exactly at the threshold (0.5 × 2.5 − 1 = 0.25, exact in binary) → no bet: strictly greater
  assert.equal(edgeStrategy(0.25)(cand(3, [0.5, 0.25, 0.25], [2.5, 3, 4], 0)), null);
  assert.equal(edgeStrategy(0.2499)(cand(3, [0.5, 0.25, 0.25], [2.5, 3, 4], 0)), 0);
  // away has the largest edge (0.3*4-1 = 0.2) even though home also clears the threshold (0.1)
  assert.equal(s(cand(4, [0.55, 0.15, 0.3], [2.0, 3, 4], 2)), 2);
});

test('ROI, hit rate and per-region rows; regions with no bet get n_bets 0 and null figures', () => {
  const cs = [
    cand(1, [0.5, 0.3, 0.2], [2.2, 3, 4], 0, 1), // bet home, wins +1.2
    cand(2, [0.5, 0.3, 0.2], [2.5, 3, 4], 2, 1), // bet home, loses −1
    cand(3, [0.2, 0.3, 0.5], [5, 3.5, 2.5], 2, 1), // edges 0, 0.05, 0.25 → away wins +1.5
    cand(4, [0.4, 0.3, 0.3], [2.0, 3.0, 3.0], 0, 2), // no edge → no bet
  ];
  const sim = simulateBets(cs, {
    edgeThreshold: 0.05,
    regions: new Map([
      [1, 'R1'],
      [2, 'R2'],
      [3, 'R3'],
    ]),
  });
  const r1 = sim.model.by_region.find((r) => r.region_id === 1)!;
  assert.equal(r1.n_bets, 3);
  assert.equal(r1.n_won, 2);
  assert.ok(Math.abs(r1.profit - 1.7) < 1e-9);
  assert.ok(Math.abs(r1.roi_pct! - (1.7 / 3) * 100) < 1e-9);
  assert.ok(Math.abs(r1.hit_rate! - 2 / 3) < 1e-9);
  for (const id of [2, 3]) {
    const r = sim.model.by_region.find((x) => x.region_id === id)!;
    assert.equal(r.n_bets, 0);
    assert.equal(r.roi_pct, null);
    assert.equal(r.hit_rate, null);
  }
  assert.equal(sim.model.total.n_bets, 3);

  const csv = roiByRegionCsv(sim.model.by_region);
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], 'region_name,roi_pct,n_bets,hit_rate,region_id');
  assert.equal(lines.length, 4);
  assert.equal(lines[2], 'R2,,0,,2');
  assert.equal(lines[3], 'R3,,0,,3');
  assert.match(lines[1], /^R1,56\.666667,3,0\.666667,1$/);
});

test('baselines bet every candidate: favourite = lowest odd, home = always home', () => {
  const cs = [
    cand(1, [0.4, 0.3, 0.3], [1.8, 3.5, 4.5], 0), // fav home wins: +0.8; home +0.8
    cand(2, [0.4, 0.3, 0.3], [4.0, 3.4, 1.9], 0), // fav away loses −1; home wins +3
    cand(3, [0.4, 0.3, 0.3], [2.5, 3.1, 2.9], 1), // fav home loses −1; home −1
  ];
  const sim = simulateBets(cs, { edgeThreshold: 0.05 });
  const fav = sim.baselines.favourite.total;
  const home = sim.baselines.home.total;
  assert.equal(fav.n_bets, 3);
  assert.equal(home.n_bets, 3);
  assert.ok(Math.abs(fav.profit - -1.2) < 1e-9);
  assert.ok(Math.abs(home.profit - 2.8) < 1e-9);
  assert.ok(Math.abs(fav.hit_rate! - 1 / 3) < 1e-9);
  assert.ok(Math.abs(home.roi_pct! - (2.8 / 3) * 100) < 1e-9);
  const csv = roiBaselinesCsv(sim);
  assert.match(csv, /^strategy,region_name,roi_pct,n_bets,hit_rate,profit,region_id\n/);
  assert.match(csv, /\nfavourite,ALL,-40,3,0\.333333,-1\.2,\n/);
});

test('per-season breakdown lists every season with candidates', () => {
  const cs = [
    cand(1, [0.5, 0.3, 0.2], [2.2, 3, 4], 0, 1, '2021-2022'),
    cand(2, [0.4, 0.3, 0.3], [2.0, 3, 3], 0, 1, '2022-2023'),
  ];
  const sim = simulateBets(cs, { edgeThreshold: 0.05 });
  assert.deepEqual(
    sim.model.by_region_season.map((r) => [r.season, r.n_bets]),
    [
      ['2021-2022', 1],
      ['2022-2023', 0],
    ],
  );
});

test('candidate selection: out-of-sample rows with results and full odds only; closing by default', () => {
  const results = new Map([
    [1, { match_id: 1, region_id: 1, region_name: 'R1', season: 's', outcome: 0 as const }],
    [2, { match_id: 2, region_id: 1, region_name: 'R1', season: 's', outcome: null }],
    [3, { match_id: 3, region_id: 1, region_name: 'R1', season: 's', outcome: 1 as const }],
  ]);
  const oddsMap = new Map([
    [
      1,
      odds(1, {
        open_home: 2.5,
        open_draw: 3.2,
        open_away: 3.0,
        close_home: 2.1,
        close_draw: 3.3,
        close_away: 3.6,
      }),
    ],
    [2, odds(2, { close_home: 2, close_draw: 3, close_away: 4 })],
    [3, odds(3, { odd_home: 2, odd_draw: null, odd_away: 4 })],
  ]);
  const preds = [1, 2, 3, 4].map((id) => ({
    match_id: id,
    proba_home: 0.5,
    proba_draw: 0.3,
    proba_away: 0.2,
  }));
  const sel = selectCandidates(preds, results, oddsMap);
  assert.deepEqual(
    sel.candidates.map((c) => c.match_id),
    [1],
  );
  assert.deepEqual(sel.candidates[0].odds, [2.1, 3.3, 3.6]);
  assert.deepEqual(sel.excluded, { no_match: 1, not_finished: 1, no_odds: 1, bad_probabilities: 0 });
  const opening = selectCandidates(preds, results, oddsMap, 'opening');
  assert.deepEqual(opening.candidates[0].odds, [2.5, 3.2, 3.0]);
  // Closing falls back to the pre-match odd_* set when no closing odds are recorded.
  assert.deepEqual(pickOdds(odds(9, { odd_home: 2, odd_draw: 3, odd_away: 4 }), 'closing'), [2, 3, 4]);
  assert.equal(pickOdds(odds(9, { odd_home: 2, odd_draw: 3, odd_away: 4 }), 'opening'), null);
});
