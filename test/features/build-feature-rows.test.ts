import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Match } from '../../src/domain/index.js';
import {
  buildFeatureRows,
  FEATURE_NAMES,
  type FeatureRow,
  featureRowsFromParquet,
  featureRowsToParquet,
  MODEL_FEATURE_NAMES,
  toModelInput,
} from '../../src/features/index.js';
import { syntheticLeague } from './league-fixture.js';

const { matches, odds } = syntheticLeague();
const END = new Date('2030-01-01T00:00:00Z');

function byId(rows: FeatureRow[]): Map<number, FeatureRow> {
  return new Map(rows.map((r) => [r.match_id, r]));
}

test('one row per match, in kick-off order, labels from finished matches', () => {
  const rows = buildFeatureRows(matches, odds, END);
  assert.equal(rows.length, matches.length);
  for (let i = 1; i < rows.length; i++) {
    assert.ok(rows[i - 1].start_time_utc.getTime() <= rows[i].start_time_utc.getTime());
  }
  assert.ok(rows.every((r) => r.label !== null && !r.is_future));
  for (const r of rows) for (const name of FEATURE_NAMES) assert.ok(name in r, name);
});

test('no leakage: changing a result changes no row of that match or of any earlier match', () => {
  const base = byId(buildFeatureRows(matches, odds, END));
  for (const target of [matches[10], matches[40], matches[matches.length - 5]]) {
    const changed: Match[] = matches.map((m) =>
      m.id === target.id ? { ...m, homeScore: (m.homeScore ?? 0) + 3, awayScore: 0 } : m,
    );
    const rows = buildFeatureRows(changed, odds, END);
    let laterDiffers = false;
    for (const r of rows) {
      const before = base.get(r.match_id)!;
      const isTarget = r.match_id === target.id;
      if (r.start_time_utc.getTime() <= target.startTimeUtc.getTime()) {
        const { label: _a, ...restNew } = r;
        const { label: _b, ...restOld } = before;
        // The target's own label follows its (changed) result; every feature must not.
        assert.deepEqual(restNew, restOld, `match ${r.match_id} changed`);
        if (!isTarget) assert.equal(r.label, before.label);
      } else if (JSON.stringify(r) !== JSON.stringify(before)) laterDiffers = true;
    }
    // The test can fail: a later match of the same teams does see the new result.
    assert.ok(laterDiffers, 'later rows should reflect the changed result');
  }
});

test('matches after asOf contribute nothing: labels null, results ignored', () => {
  const asOf = matches[Math.floor(matches.length / 2)].startTimeUtc;
  const rows = buildFeatureRows(matches, odds, asOf);
  const scheduled: Match[] = matches.map((m) =>
    m.startTimeUtc >= asOf ? { ...m, status: 'scheduled', homeScore: null, awayScore: null } : m,
  );
  const shuffled: Match[] = matches.map((m, i) =>
    m.startTimeUtc >= asOf ? { ...m, homeScore: i % 5, awayScore: (i * 3) % 4 } : m,
  );
  const a = buildFeatureRows(scheduled, odds, asOf);
  const b = buildFeatureRows(shuffled, odds, asOf);
  assert.deepEqual(rows, a);
  assert.deepEqual(rows, b);
  const future = rows.filter((r) => r.start_time_utc >= asOf);
  assert.ok(future.length > 0);
  for (const r of future) {
    assert.equal(r.label, null);
    assert.equal(r.is_future, true);
  }
  // Ratings are frozen after asOf: a team's Elo is the same in all its future matches.
  const eloOf = new Map<string, number>();
  for (const r of future) {
    const prev = eloOf.get(r.home_team_name);
    if (prev !== undefined) assert.equal(r.elo_home, prev);
    eloOf.set(r.home_team_name, r.elo_home as number);
  }
});

test('market features: de-margined, flagged missing when odds are absent (never invented)', () => {
  const rows = buildFeatureRows(matches, odds, END);
  let missing = 0;
  for (const r of rows) {
    if (odds.has(r.match_id)) {
      assert.equal(r.mkt_missing, 0);
      const s = (r.mkt_home as number) + (r.mkt_draw as number) + (r.mkt_away as number);
      assert.ok(Math.abs(s - 1) < 1e-12);
      assert.ok((r.mkt_overround as number) > 0);
    } else {
      missing++;
      assert.equal(r.mkt_missing, 1);
      for (const n of FEATURE_NAMES.filter((f) => f.startsWith('mkt_') && f !== 'mkt_missing'))
        assert.equal(r[n], null);
      assert.equal(r.odds_close_home, null);
    }
  }
  assert.ok(missing > 0);
});

test('promoted teams start at a league-low prior', () => {
  const rows = buildFeatureRows(matches, odds, END);
  const promoted = rows.find((r) => r.season === '2019-2020' && r.new_team_home === 1);
  assert.ok(promoted, 'a promoted team plays at home in season 2');
  const sameRound = rows.filter((r) => r.start_time_utc.getTime() === promoted.start_time_utc.getTime());
  const elos = sameRound.flatMap((r) => [r.elo_home as number, r.elo_away as number]);
  const mean = elos.reduce((a, b) => a + b, 0) / elos.length;
  assert.ok((promoted.elo_home as number) < mean, 'promoted team rated below the league mean');
  const first = rows.filter((r) => r.season === '2018-2019');
  assert.ok(first.every((r) => r.new_team_home === 0 && r.new_team_away === 0));
});

test('toModelInput: order follows the names, missing becomes NaN', () => {
  const rows = buildFeatureRows(matches, odds, END);
  const first = rows[0];
  const x = toModelInput(first, MODEL_FEATURE_NAMES);
  assert.equal(x.length, MODEL_FEATURE_NAMES.length);
  MODEL_FEATURE_NAMES.forEach((n, j) => {
    const v = first[n];
    if (v === null) assert.ok(Number.isNaN(x[j]));
    else assert.equal(x[j], v);
  });
  assert.ok(Number.isNaN(toModelInput(first, ['form_points_home'])[0]), 'no history yet');
});

test('parquet round trip keeps every value, null and timestamp', async () => {
  const rows = buildFeatureRows(matches, odds, matches[100].startTimeUtc);
  const back = await featureRowsFromParquet(featureRowsToParquet(rows));
  assert.deepEqual(back, rows);
});
