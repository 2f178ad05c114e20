import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickGoalsOdds, roiMarketsCsv, twoWayCandidate } from '../../src/analytics/goals-simulation.js';
import { runGoalsSimulateStage } from '../../src/analytics/index.js';
import { simulateBets } from '../../src/analytics/simulation.js';
import { KEYS, type OddsRecord } from '../../src/domain/index.js';
import { ODDS_COLUMNS } from '../../src/ingest/odds-columns.js';
import { MARKETS_COLUMNS, type MarketsRow } from '../../src/model/index.js';
import { writeParquet } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { generateLeague, setupEnv } from './synthetic.js';

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

test('goals simulation stage bets out-of-sample rows only: walk-forward rows kicked off at or after their cut-off', async () => {
  const FIRST = new Date('2020-08-01T15:00:00Z');
  const AS_OF = new Date('2022-06-01T00:00:00Z');
  const CUTOFF = new Date('2021-08-01T00:00:00Z');
  const env = await setupEnv(
    generateLeague({
      seed: 3,
      homeAdvantage: 0.3,
      seasons: 2,
      teams: 6,
      regions: ['Alpha'],
      firstSeasonStart: FIRST,
      asOf: AS_OF,
    }),
    AS_OF,
    CUTOFF,
    CUTOFF,
  );
  try {
    // Every match priced 1.90 / 1.90 in both goals markets at closing.
    const odds = env.matches.map((m) => ({
      match_id: m.id,
      close_over25: 1.9,
      close_under25: 1.9,
      close_btts_yes: 1.9,
      close_btts_no: 1.9,
    }));
    // The ingest's odds file (what the simulation prices bets with) and the served run's copy.
    const oddsFile = writeParquet([...ODDS_COLUMNS], odds as unknown as Record<string, unknown>[]);
    await env.deps.store.put(KEYS.odds.bucket, KEYS.odds.key, oddsFile);
    // Expected goals 3 – 3: P(over 2.5) ≈ 0.94, P(BTTS) ≈ 0.90, an edge far above 5 % on every row. Finished
    // matches alternate between an out-of-sample walk-forward row, an in-sample one (cut-off after kick-off)
    // and a champion row; only the first kind may be bet.
    const finished = env.matches.filter((m) => m.status === 'finished' && m.startTimeUtc < AS_OF);
    const day = 86_400_000;
    const rows: MarketsRow[] = finished.map((m, i) => ({
      match_id: m.id,
      expected_home_goals: 3,
      expected_away_goals: 3,
      rho: 0,
      model_stage: i % 3 === 2 ? 'champion' : 'backtest',
      model_run_id: 'r',
      training_cutoff: new Date(m.startTimeUtc.getTime() + (i % 3 === 1 ? day : -day)),
      odd_over25: 1.9,
      odd_under25: 1.9,
      odd_btts_yes: 1.9,
      odd_btts_no: 1.9,
    }));
    // Served as a pipeline run would serve them: odds and markets of one published run.
    await publishArtifacts(env.deps, {
      odds: oddsFile,
      markets: writeParquet(MARKETS_COLUMNS, rows as unknown as Record<string, unknown>[]),
    });
    const outOfSample = finished.filter((_, i) => i % 3 === 0).length;
    assert.ok(outOfSample > 10 && outOfSample < finished.length);
    const results = await runGoalsSimulateStage(env.deps, { asOf: AS_OF });
    assert.ok(results);
    for (const { market, sim } of results) {
      assert.equal(sim.model.total.n_bets, outOfSample, market);
      assert.equal(sim.baselines.favourite.total.n_bets, outOfSample, market);
    }
    const csv = (await env.deps.store.get('reports', KEYS.roiByRegionMarkets.key))!.body.toString();
    assert.match(csv, new RegExp(`\\nou25,model,ALL,-?[\\d.]+,${outOfSample},`));
    assert.match(csv, new RegExp(`\\nbtts,model,ALL,-?[\\d.]+,${outOfSample},`));
  } finally {
    await env.close();
  }
});
