import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OddsRecord } from '../../src/domain/index.js';
import { impliedMeans } from '../../src/features/index.js';
import type { DixonColesMarketState } from '../../src/model/families/dixon-coles-market.js';
import { TOTAL_LINES } from '../../src/model/goals/markets.js';
import { regionRhos } from '../../src/model/goals/region-rho.js';
import { goalsMetrics } from '../../src/model/goals/walk-forward.js';
import {
  buildGoalInputs,
  deserializeGoalsModel,
  type GoalInput,
  goalsWalkForward,
  MATRIX_SIZE,
  marketsFromMatrix,
  predictGoals,
  scoreMatrix,
  serializeGoalsModel,
  trainGoalsModel,
} from '../../src/model/index.js';
import { goalsLeague } from './goals-fixture.js';

const close = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('score matrix sums to 1 and every market of one match adds up and follows from it', () => {
  for (const [lh, la, rho] of [
    [1.45, 1.1, -0.07],
    [0.4, 2.9, 0.05],
    [3.2, 0.3, -0.2],
    [1, 1, 0],
  ]) {
    const m = scoreMatrix(lh, la, rho);
    assert.equal(m.length, MATRIX_SIZE * MATRIX_SIZE);
    close(
      m.reduce((s, v) => s + v, 0),
      1,
    );
    assert.ok(m.every((v) => v >= 0));
    const mk = marketsFromMatrix(m, 5);
    close(mk.proba_home + mk.proba_draw + mk.proba_away, 1);
    // The matrix reproduces its own 1X2: recompute by brute force.
    let h = 0;
    let d = 0;
    for (let i = 0; i < MATRIX_SIZE; i++)
      for (let j = 0; j < MATRIX_SIZE; j++) {
        if (i > j) h += m[i * MATRIX_SIZE + j];
        if (i === j) d += m[i * MATRIX_SIZE + j];
      }
    close(mk.proba_home, h);
    close(mk.proba_draw, d);
    // Over decreases with the line; under = 1 − over is a probability.
    let prev = 1;
    for (const line of TOTAL_LINES) {
      const over = mk.over[line.toFixed(1)];
      assert.ok(over >= 0 && over <= prev + 1e-15, `over ${line}`);
      prev = over;
    }
    close(mk.over['0.5'], 1 - m[0]);
    close(mk.dnb_home + mk.dnb_away, 1);
    close(mk.dnb_home, mk.proba_home / (mk.proba_home + mk.proba_away));
    for (const a of mk.asian) close(a.home_win + a.push + a.home_lose, 1, 1e-12);
    // Handicap 0 pushes exactly on a draw; −0.5 is the plain home win.
    const ah0 = mk.asian.find((a) => a.line === 0)!;
    close(ah0.push, mk.proba_draw);
    close(mk.asian.find((a) => a.line === -0.5)!.home_win, mk.proba_home);
    assert.equal(mk.top_scores.length, 5);
    for (let k = 1; k < 5; k++) assert.ok(mk.top_scores[k - 1].proba >= mk.top_scores[k].proba);
    const best = Math.max(...m);
    close(mk.top_scores[0].proba, best);
    close(mk.top_scores[0].proba, m[mk.top_scores[0].home * MATRIX_SIZE + mk.top_scores[0].away]);
  }
});

test('the Dixon–Coles ρ moves mass to 0-0 and 1-1 without changing the total', () => {
  const a = scoreMatrix(1.3, 1.1, 0);
  const b = scoreMatrix(1.3, 1.1, -0.1);
  assert.ok(b[0] > a[0]);
  assert.ok(b[MATRIX_SIZE + 1] > a[MATRIX_SIZE + 1]);
  assert.ok(b[1] < a[1]);
});

test('per-region ρ: set by the last year of closing BTTS prices, old or sparse regions keep the global ρ', () => {
  const day = 86_400_000;
  const rows = [];
  for (let i = 0; i < 400; i++) {
    const [lh, la] = [1.2 + (i % 4) * 0.2, 1 + (i % 3) * 0.2];
    // Region 1's recent closing prices are the matrices of ρ = −0.12; older ones (ρ = +0.1) are ignored.
    const old = i < 200;
    const btts = marketsFromMatrix(scoreMatrix(lh, la, old ? 0.1 : -0.12), 1).btts_yes;
    rows.push({ region_id: 1, t: old ? i * day - 800 * day : i * day, lh, la, btts_close: btts });
  }
  for (let i = 0; i < 49; i++) rows.push({ region_id: 2, t: 399 * day, lh: 1.3, la: 1.1, btts_close: 0.6 });
  rows.push({ region_id: 3, t: 0, lh: 1.3, la: 1.1, btts_close: null });
  const r = regionRhos(rows);
  assert.deepEqual(Object.keys(r), ['1']);
  close(r['1'], -0.12, 1e-4);
  // Artifacts written before rho_by_region predict with the global ρ.
  const { matches, odds } = goalsLeague();
  const asOf = new Date('2030-01-01T00:00:00Z');
  const inputs = buildGoalInputs(matches, odds, asOf);
  const raw = JSON.parse(serializeGoalsModel(trainGoalsModel(inputs, asOf)));
  assert.ok(typeof raw.state.rho_by_region['1'] === 'number');
  delete raw.state.rho_by_region;
  assert.equal(predictGoals(deserializeGoalsModel(JSON.stringify(raw)), inputs[0]).rho, raw.state.rho);
});

test('implied means reproduce the prices they were solved from', () => {
  const truth = marketsFromMatrix(scoreMatrix(1.7, 0.9, 0), 1);
  const lam = impliedMeans(truth.proba_home, truth.proba_away, truth.over['2.5']);
  assert.ok(lam);
  // The matrix renormalises over 0..10 goals; the solver does not: they agree to the truncated tail.
  close(lam[0], 1.7, 1e-5);
  close(lam[1], 0.9, 1e-5);
  assert.equal(impliedMeans(null, 0.3, 0.5), null);
});

test('serialisation round-trip is bit-exact (same JSON, identical predictions)', () => {
  const { matches, odds } = goalsLeague();
  const asOf = new Date('2030-01-01T00:00:00Z');
  const inputs = buildGoalInputs(matches, odds, asOf);
  const model = trainGoalsModel(inputs, asOf);
  const text = serializeGoalsModel(model);
  const back = deserializeGoalsModel(text);
  assert.equal(serializeGoalsModel(back), text);
  for (const input of inputs) assert.deepEqual(predictGoals(back, input), predictGoals(model, input));
  // A malformed artifact is a coded error, not a crash later.
  const bad = JSON.parse(text);
  bad.state.rho = 'x';
  assert.throws(() => deserializeGoalsModel(JSON.stringify(bad)), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
  assert.throws(() => deserializeGoalsModel('{'), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
});

test('leakage: a match’s own closing prices and result never reach its inputs; later matches never reach earlier ones', () => {
  const { matches, odds } = goalsLeague({ seed: 11 });
  const asOf = new Date('2030-01-01T00:00:00Z');
  const base = new Map(buildGoalInputs(matches, odds, asOf).map((r) => [r.match_id, r]));
  const target = matches[Math.floor(matches.length / 2)];
  const t = target.startTimeUtc.getTime();
  // Change the target's closing odds (all markets) and its result.
  const o = odds.get(target.id)!;
  const changed = new Map<number, OddsRecord>(odds);
  changed.set(target.id, {
    ...o,
    close_home: 1.2,
    close_draw: 7,
    close_away: 15,
    odd_home: 1.2,
    odd_draw: 7,
    odd_away: 15,
    close_over25: 1.2,
    close_under25: 5,
    close_btts_yes: 1.3,
    close_btts_no: 3.5,
  });
  const changedMatches = matches.map((m) => (m.id === target.id ? { ...m, homeScore: 9, awayScore: 0 } : m));
  const after = new Map(buildGoalInputs(changedMatches, changed, asOf).map((r) => [r.match_id, r]));
  let laterChanged = 0;
  for (const m of matches) {
    const a = base.get(m.id)!;
    const b = after.get(m.id)!;
    if (m.startTimeUtc.getTime() <= t) {
      // Same kick-off or earlier (the target itself included): inputs identical.
      assert.deepEqual(b.open, a.open, `open of ${m.id}`);
      assert.deepEqual(b.rated, a.rated, `rated of ${m.id}`);
    } else if (b.rated[0] !== a.rated[0]) laterChanged++;
  }
  // The closing line does feed later matches (the test can fail the other way round too).
  assert.ok(laterChanged > 0);
  // Opening prices: only the match's own `open` moves.
  const changedOpen = new Map<number, OddsRecord>(odds);
  changedOpen.set(target.id, { ...o, open_over25: 1.3, open_under25: 3.6 });
  const openRun = buildGoalInputs(matches, changedOpen, asOf);
  for (const r of openRun) {
    const a = base.get(r.match_id)!;
    if (r.match_id === target.id) assert.notDeepEqual(r.open, a.open);
    else assert.deepEqual(r.open, a.open);
    assert.deepEqual(r.rated, a.rated);
  }
});

test('leakage: results and closing prices at or after as-of are ignored', () => {
  const { matches, odds } = goalsLeague({ seed: 3 });
  const asOf = matches[Math.floor(matches.length * 0.7)].startTimeUtc;
  const inputs = buildGoalInputs(matches, odds, asOf);
  for (const r of inputs) {
    if (r.t >= asOf.getTime()) {
      assert.equal(r.home_goals, null);
      assert.equal(r.line.ou_close, null);
      assert.equal(r.line.btts_close, null);
    }
  }
  const trimmed = matches.filter((m) => m.startTimeUtc < asOf);
  const a = buildGoalInputs(trimmed, odds, asOf);
  const b = new Map(inputs.map((r) => [r.match_id, r]));
  for (const r of a) assert.deepEqual(b.get(r.match_id), r);
});

test('leakage: the per-region ρ reads the closing BTTS prices of training matches only', () => {
  const { matches, odds } = goalsLeague({ seed: 7 });
  const asOf = matches[Math.floor(matches.length * 0.7)]!.startTimeUtc;
  const regionRhoOf = (model: ReturnType<typeof trainGoalsModel>) =>
    (model.state as DixonColesMarketState).rho_by_region;
  const base = trainGoalsModel(buildGoalInputs(matches, odds, asOf), asOf);
  assert.ok(Object.keys(regionRhoOf(base)).length > 0, 'the league has a ρ of its own');
  const withBtts = (pick: (t: number) => boolean) => {
    const out = new Map<number, OddsRecord>(odds);
    for (const m of matches) {
      const o = odds.get(m.id);
      if (o && pick(m.startTimeUtc.getTime()))
        out.set(m.id, { ...o, close_btts_yes: 1.15, close_btts_no: 6 });
    }
    return out;
  };
  // Closing BTTS prices of matches at or after as-of (the ones the model will predict): same model.
  const later = withBtts((t) => t >= asOf.getTime());
  assert.deepEqual(trainGoalsModel(buildGoalInputs(matches, later, asOf), asOf).state, base.state);
  // Those of the training year do move it (the test can fail the other way round too).
  const earlier = withBtts((t) => t < asOf.getTime());
  const moved = regionRhoOf(trainGoalsModel(buildGoalInputs(matches, earlier, asOf), asOf));
  assert.notDeepEqual(moved, regionRhoOf(base));
});

test('walk-forward: folds train only on earlier matches and the model learns the goals', () => {
  const { matches, odds } = goalsLeague({ seed: 5, seasons: 4, teams: 16, spread: 1.2 });
  const inputs = buildGoalInputs(matches, odds, new Date('2030-01-01T00:00:00Z'));
  const from = matches[Math.floor(matches.length / 2)].startTimeUtc;
  const to = new Date('2030-01-01T00:00:00Z');
  const res = goalsWalkForward(inputs, { from, to, refitDays: 60 });
  assert.ok(res.folds.length > 1);
  const byId = new Map(inputs.map((r) => [r.match_id, r]));
  for (const row of res.rows) assert.ok(byId.get(row.match_id)!.t >= row.training_cutoff.getTime());
  const ou = res.metrics.overall.ou25!;
  assert.ok(ou.n === res.rows.length);
  // Better than a coin on O/U (the prices carry the true means).
  assert.ok(ou.model < Math.log(2), `${ou.model}`);
  assert.ok(ou.diff_open_ci[0] <= ou.diff_open_ci[1]);
  assert.ok(ou.diff_close_ci[0] <= ou.diff_close_ci[1]);
});

test('metrics: paired bootstrap intervals against the opening AND the closing line, overall and per region', () => {
  // The closing line equals the model's own probabilities, the opening line is a coin: model − close is
  // exactly 0 on every match (interval [0, 0]) while model − open is not.
  const inputs: GoalInput[] = [];
  const rows = [];
  for (let i = 0; i < 40; i++) {
    const [lh, la, rho] = [1 + (i % 5) * 0.2, 0.8 + (i % 3) * 0.3, -0.05];
    const mk = marketsFromMatrix(scoreMatrix(lh, la, rho), 1);
    inputs.push({
      match_id: i + 1,
      region_id: 1 + (i % 2),
      t: i * 86_400_000,
      pt: i * 86_400_000 - 172_800_000,
      open: null,
      rated: [lh, la],
      line: { ou_open: 0.5, ou_close: mk.over['2.5'], btts_open: 0.5, btts_close: mk.btts_yes },
      home_goals: i % 4,
      away_goals: i % 3,
    });
    rows.push({ match_id: i + 1, fold_id: 0, training_cutoff: new Date(0), lh, la, rho });
  }
  const m = goalsMetrics(inputs, rows);
  for (const r of [m.overall.ou25, m.overall.btts, m.by_region['1'].ou25, m.by_region['2'].btts]) {
    assert.ok(r);
    assert.deepEqual(r.diff_close_ci, [0, 0]);
    close(r.model, r.close);
    assert.notDeepEqual(r.diff_open_ci, [0, 0]);
    const d = r.model - r.open;
    assert.ok(r.diff_open_ci[0] <= d && d <= r.diff_open_ci[1], `${d} in ${r.diff_open_ci}`);
  }
});
