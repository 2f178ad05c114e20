import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type OddsObservation, OddsTimeline, OPENING_LEAD_MS } from '../../src/domain/index.js';
import { buildFeatureRows, demargin, FEATURE_NAMES, type FeatureRow } from '../../src/features/index.js';
import { syntheticLeague } from './league-fixture.js';

// Leakage tests of the point-in-time odds: a feature never changes when an observation made
// after the match's prediction time is added, whatever its prices.
const { matches, odds } = syntheticLeague({ seed: 9, regions: 2, seasons: 3, teams: 6 });
const AS_OF = matches[Math.floor(matches.length * 0.7)].startTimeUtc;
const kickoff = new Map(matches.map((m) => [m.id, m.startTimeUtc]));
const base = OddsTimeline.fromRecords(odds.values(), kickoff);
const baseObs = (): OddsObservation[] => [...base.matchIds()].flatMap((id) => [...base.of(id, '1x2')]);
const goals = (id: number, at: number, over: number): OddsObservation[] => [
  {
    match_id: id,
    market: 'ou25',
    kind: 'intermediate',
    observed_at: new Date(at),
    prices: [over, 1.9],
    source: 'g',
  },
  {
    match_id: id,
    market: 'btts',
    kind: 'intermediate',
    observed_at: new Date(at),
    prices: [1.8, 2.0],
    source: 'g',
  },
];

function sameFeatures(a: readonly FeatureRow[], b: readonly FeatureRow[], what: string): void {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++)
    for (const n of FEATURE_NAMES)
      assert.ok(
        Object.is(a[i][n], b[i][n]),
        `${what}: match ${a[i].match_id} ${n}: ${a[i][n]} vs ${b[i][n]}`,
      );
}

test('early horizon (default): prediction at kick-off − 48 h; later observations, even wild ones, change nothing', () => {
  const before = buildFeatureRows(matches, odds, AS_OF, { observations: OddsTimeline.from(baseObs()) });
  // The default (no observations given) builds the same timeline from the records.
  sameFeatures(before, buildFeatureRows(matches, odds, AS_OF), 'default timeline');
  const later: OddsObservation[] = [];
  for (const m of matches) {
    const k = m.startTimeUtc.getTime();
    for (const at of [k - OPENING_LEAD_MS + 1, k - 3_600_000, k - 1]) {
      later.push({
        match_id: m.id,
        market: '1x2',
        kind: 'intermediate',
        observed_at: new Date(at),
        prices: [1.05, 15, 40],
        source: 'later',
      });
      later.push(...goals(m.id, at, 1.3));
    }
  }
  const after = buildFeatureRows(matches, odds, AS_OF, {
    observations: OddsTimeline.from([...baseObs(), ...later]),
  });
  // Rows predicted at kick-off − 48 h (all past ones, and fixtures not yet inside that window at AS_OF);
  // a fixture inside it is predicted at AS_OF and may see what was observed by then (next test).
  const early = (rows: FeatureRow[]) =>
    rows.filter((r) => r.prediction_time?.getTime() === r.start_time_utc.getTime() - OPENING_LEAD_MS);
  assert.ok(early(before).length > 0.9 * before.length);
  assert.ok(before.filter((r) => r.start_time_utc < AS_OF).every((r) => early([r]).length === 1));
  sameFeatures(early(before), early(after), 'later observations');
  for (const r of before) {
    assert.equal(
      r.prediction_time?.getTime(),
      r.is_future
        ? Math.max(
            r.start_time_utc.getTime() - OPENING_LEAD_MS,
            Math.min(AS_OF.getTime(), r.start_time_utc.getTime() - 1),
          )
        : r.start_time_utc.getTime() - OPENING_LEAD_MS,
    );
    const o = odds.get(r.match_id);
    if (!o) {
      assert.equal(r.mkt_missing, 1);
      assert.equal(r.odds_observed_at, null);
      continue;
    }
    // The market view is the opening line, observed at kick-off − 48 h.
    assert.equal(r.mkt_home, demargin(o.open_home, o.open_draw, o.open_away)?.[0]);
    assert.equal(r.odds_observed_at?.getTime(), r.start_time_utc.getTime() - OPENING_LEAD_MS);
  }
});

test('kickoff horizon: the latest observation at or before kick-off (the closing line); after kick-off nothing', () => {
  const rows = buildFeatureRows(matches, odds, AS_OF, { horizon: 'kickoff' });
  for (const r of rows) {
    const o = odds.get(r.match_id);
    if (!o) continue;
    assert.equal(r.mkt_home, demargin(o.close_home, o.close_draw, o.close_away)?.[0]);
    assert.equal(r.odds_observed_at?.getTime(), r.start_time_utc.getTime());
  }
  const inPlay = matches.flatMap((m): OddsObservation[] => [
    {
      match_id: m.id,
      market: '1x2',
      kind: 'intermediate',
      observed_at: new Date(m.startTimeUtc.getTime() + 60_000),
      prices: [1.01, 30, 80],
      source: 'x',
    },
    ...goals(m.id, m.startTimeUtc.getTime() + 60_000, 1.2),
  ]);
  const after = buildFeatureRows(matches, odds, AS_OF, {
    horizon: 'kickoff',
    observations: OddsTimeline.from([...baseObs(), ...inPlay]),
  });
  sameFeatures(rows, after, 'observations after kick-off');
});

test('explicit as-of horizon: a live fixture sees the observations made by then, never one made after', () => {
  const fixture = matches.find((m) => m.startTimeUtc > AS_OF && odds.has(m.id))!;
  const k = fixture.startTimeUtc.getTime();
  const at = new Date(k - 5 * 3_600_000);
  const seen: OddsObservation = {
    match_id: fixture.id,
    market: '1x2',
    kind: 'intermediate',
    observed_at: new Date(at.getTime() - 60_000),
    prices: [1.5, 4.2, 6.5],
    source: 'feed',
  };
  const unseen: OddsObservation = { ...seen, observed_at: new Date(at.getTime() + 1), prices: [4, 3.5, 1.9] };
  const build = (extra: OddsObservation[]) =>
    buildFeatureRows(matches, odds, AS_OF, {
      horizon: { at },
      observations: OddsTimeline.from([...baseObs(), ...extra, ...goals(fixture.id, at.getTime() - 10, 1.7)]),
    });
  const withSeen = build([seen]);
  const row = withSeen.find((r) => r.match_id === fixture.id)!;
  assert.equal(row.mkt_home, demargin(1.5, 4.2, 6.5)?.[0]);
  assert.equal(row.odds_observed_at?.getTime(), seen.observed_at.getTime());
  assert.equal(row.prediction_time?.getTime(), at.getTime());
  assert.ok(row.gm_over25 !== null && row.gm_over25 > 0.5 && row.gm_over25 < 0.56, String(row.gm_over25));
  assert.ok(row.gm_btts !== null && Math.abs(row.gm_btts - 0.526) < 0.01, String(row.gm_btts));
  sameFeatures(withSeen, build([seen, unseen]), 'an observation one ms after the as-of time');
  // Earlier matches under {at} are capped at their own kick-off: their closing line.
  const past = withSeen.find((r) => r.start_time_utc < AS_OF && odds.has(r.match_id))!;
  const o = odds.get(past.match_id)!;
  assert.equal(past.mkt_home, demargin(o.close_home, o.close_draw, o.close_away)?.[0]);
});

test('goals-market columns: null without observations, de-margined probabilities that sum with their complement to 1', () => {
  const rows = buildFeatureRows(matches, odds, AS_OF);
  assert.ok(rows.every((r) => r.gm_over25 === null && r.gm_btts === null));
  const m = matches[40];
  const k = m.startTimeUtc.getTime();
  const withGoals = buildFeatureRows(matches, odds, AS_OF, {
    observations: OddsTimeline.from([...baseObs(), ...goals(m.id, k - OPENING_LEAD_MS, 2.0)]),
  });
  const r = withGoals.find((x) => x.match_id === m.id)!;
  // 2.0 / 1.9: book 1.0263; power de-margining gives P(over) a little below 1/2.0 / 1.0263 + …
  assert.ok(r.gm_over25 !== null && r.gm_over25 > 0.47 && r.gm_over25 < 0.49, String(r.gm_over25));
});

test('early horizon, a fixture already inside its 48 h window: predicted at asOf, with what was observed by then', () => {
  const fixture = matches.find((m) => m.startTimeUtc > AS_OF && odds.has(m.id))!;
  const k = fixture.startTimeUtc.getTime();
  const asOf = new Date(k - 10 * 3_600_000);
  const seen: OddsObservation = {
    match_id: fixture.id,
    market: '1x2',
    kind: 'intermediate',
    observed_at: new Date(asOf.getTime() - 1),
    prices: [1.5, 4.2, 6.5],
    source: 'feed',
  };
  const unseen: OddsObservation = {
    ...seen,
    observed_at: new Date(asOf.getTime() + 1),
    prices: [4, 3.5, 1.9],
  };
  const build = (extra: OddsObservation[]) =>
    buildFeatureRows(matches, odds, asOf, { observations: OddsTimeline.from([...baseObs(), ...extra]) });
  const a = build([seen]);
  const row = a.find((r) => r.match_id === fixture.id)!;
  assert.equal(row.prediction_time?.getTime(), asOf.getTime());
  assert.equal(row.mkt_home, demargin(1.5, 4.2, 6.5)?.[0]);
  sameFeatures(a, build([seen, unseen]), 'an observation after asOf');
});

// Two horizons: the match's OWN closing line, moved alone, never reaches its early-horizon row (nor
// any row predicted before that closing time); at kick-off it does — the test can fail both ways.
test('own closing line: absent from the early row, present in the kick-off row; only earlier rows unchanged', () => {
  const past = matches.filter((m) => m.startTimeUtc < AS_OF && odds.has(m.id));
  const target = past[Math.floor(past.length / 2)];
  const k = target.startTimeUtc.getTime();
  const moved = baseObs().map((o) =>
    o.match_id === target.id && o.market === '1x2' && o.kind === 'closing'
      ? { ...o, prices: [1.1, 9, 25] as [number, number, number] }
      : o,
  );
  assert.ok(moved.some((o) => o.match_id === target.id && o.kind === 'closing' && o.prices[0] === 1.1));
  for (const horizon of ['early', 'kickoff'] as const) {
    const before = buildFeatureRows(matches, odds, AS_OF, {
      horizon,
      observations: OddsTimeline.from(baseObs()),
    });
    const after = buildFeatureRows(matches, odds, AS_OF, { horizon, observations: OddsTimeline.from(moved) });
    const own = (rows: FeatureRow[]) => rows.filter((r) => r.match_id === target.id);
    if (horizon === 'early') sameFeatures(own(before), own(after), 'early row vs own closing');
    else
      assert.notEqual(own(before)[0].mkt_home, own(after)[0].mkt_home, 'kick-off row sees the closing line');
    // Rows predicted before the moved observation (at kick-off) cannot see it, whatever the horizon.
    const earlier = (rows: FeatureRow[]) =>
      rows.filter((r) => r.match_id !== target.id && (r.prediction_time?.getTime() ?? Infinity) < k);
    assert.ok(earlier(before).length > 0);
    sameFeatures(earlier(before), earlier(after), `${horizon}: rows predicted before the closing`);
  }
});
