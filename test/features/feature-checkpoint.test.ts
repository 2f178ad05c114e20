import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Match, type OddsObservation, type OddsRecord, OddsTimeline } from '../../src/domain/index.js';
import {
  buildFeatureRows,
  FEATURE_NAMES,
  type FeatureCheckpoint,
  type FeatureResume,
  type FeatureRow,
} from '../../src/features/index.js';
import { syntheticLeague } from './league-fixture.js';

// Incremental builds: a build that starts from a checkpoint returns exactly the rows
// of a full build for the matches after it, and a checkpoint whose inputs changed is never used.
const league = syntheticLeague({ seed: 21, regions: 2, seasons: 3, teams: 6 });
const DAY = 86_400_000;
const T1 = league.matches[Math.floor(league.matches.length * 0.6)].startTimeUtc.getTime() + 3_600_000;
const T2 = T1 + 10 * DAY;
const T3 = T2 + 8 * DAY;

/** The database as of `t`: results only for matches that kicked off before it. */
function matchesAt(t: number, source: readonly Match[] = league.matches): Match[] {
  return source.map((m) =>
    m.startTimeUtc.getTime() < t
      ? { ...m }
      : { ...m, status: 'scheduled' as const, homeScore: null, awayScore: null },
  );
}

function timelineOf(odds: ReadonlyMap<number, OddsRecord>, extra: OddsObservation[] = []): OddsTimeline {
  const base = OddsTimeline.fromRecords(
    odds.values(),
    new Map(league.matches.map((m) => [m.id, m.startTimeUtc])),
  );
  const all: OddsObservation[] = [...base.matchIds()].flatMap((id) => [...base.of(id, '1x2')]);
  return OddsTimeline.from([...all, ...extra]);
}

function build(
  t: number,
  matches: Match[],
  odds: ReadonlyMap<number, OddsRecord>,
  timeline: OddsTimeline,
  resume?: FeatureResume,
): FeatureRow[] {
  return buildFeatureRows(
    matches,
    odds,
    new Date(t),
    { observations: timeline, horizon: { at: new Date(t) } },
    resume,
  );
}

/** Every feature column and the point-in-time meta columns, compared with Object.is. */
function assertSameRows(got: readonly FeatureRow[], full: readonly FeatureRow[], what: string): void {
  const byId = new Map(full.map((r) => [r.match_id, r]));
  assert.ok(got.length > 0, `${what}: rows returned`);
  for (const r of got) {
    const want = byId.get(r.match_id);
    assert.ok(want, `${what}: match ${r.match_id} is in the full build`);
    for (const n of [...FEATURE_NAMES, 'label', 'is_future'] as const)
      assert.ok(
        Object.is(r[n as keyof FeatureRow], want[n as keyof FeatureRow]),
        `${what}: match ${r.match_id} ${n}`,
      );
    assert.equal(r.odds_observed_at?.getTime() ?? null, want.odds_observed_at?.getTime() ?? null);
    assert.equal(r.prediction_time?.getTime(), want.prediction_time?.getTime());
  }
}

function checkpointAt(t: number): FeatureCheckpoint {
  const resume: FeatureResume = { takeAt: new Date(t - 7 * DAY) };
  build(t, matchesAt(t), league.odds, timelineOf(league.odds), resume);
  assert.ok(resume.taken, 'a checkpoint was taken');
  assert.equal(resume.resumed, false);
  return resume.taken;
}

test('a build resumed from a checkpoint returns the full build rows after it, step after step', () => {
  let from: FeatureCheckpoint | null = checkpointAt(T1);
  for (const t of [T2, T3]) {
    const matches = matchesAt(t);
    const timeline = timelineOf(league.odds);
    const resume: FeatureResume = { from, takeAt: new Date(t - 7 * DAY) };
    const got = build(t, matches, league.odds, timeline, resume);
    assert.equal(resume.resumed, true, `resumed at ${new Date(t).toISOString()}`);
    const full = build(t, matches, league.odds, timeline);
    // Only the rows after the checkpoint, and exactly as a full build computes them.
    assert.ok(got.length < full.length);
    assert.ok(got.every((r) => r.start_time_utc.getTime() >= from!.at));
    assert.equal(got.length, full.filter((r) => r.start_time_utc.getTime() >= from!.at).length);
    assertSameRows(got, full, `step to ${new Date(t).toISOString()}`);
    assert.ok(resume.taken && resume.taken.at > from.at, 'a later checkpoint was taken');
    from = resume.taken;
  }
});

test('a checkpoint is not used when a result, an odds record or an observation before it changed', () => {
  const cases: Array<[string, (m: Match[], o: Map<number, OddsRecord>) => OddsObservation[]]> = [
    [
      'a result before the checkpoint corrected',
      (m) => {
        const old = m.find((x) => x.status === 'finished' && x.startTimeUtc.getTime() < T1 - 30 * DAY)!;
        old.homeScore = (old.homeScore ?? 0) + 3;
        return [];
      },
    ],
    [
      'an odds record before the checkpoint changed',
      (m, o) => {
        const old = m.find((x) => o.has(x.id) && x.startTimeUtc.getTime() < T1 - 30 * DAY)!;
        o.set(old.id, { ...o.get(old.id)!, close_home: 1.2, close_draw: 7, close_away: 15 });
        return [];
      },
    ],
    [
      'an observation of a match before the checkpoint added',
      (m) => {
        const old = m.find((x) => x.startTimeUtc.getTime() < T1 - 30 * DAY)!;
        return [
          {
            match_id: old.id,
            market: '1x2',
            kind: 'intermediate',
            observed_at: new Date(old.startTimeUtc.getTime() - 3_600_000),
            prices: [1.3, 5, 9],
            source: 'late-file',
          },
        ];
      },
    ],
    [
      'a match inserted before the checkpoint',
      (m) => {
        const old = m.find((x) => x.startTimeUtc.getTime() < T1 - 30 * DAY)!;
        m.push({ ...old, id: 999_999, startTimeUtc: new Date(old.startTimeUtc.getTime() + DAY) });
        return [];
      },
    ],
  ];
  for (const [what, change] of cases) {
    const from = checkpointAt(T1);
    const matches = matchesAt(T2);
    const odds = new Map(league.odds);
    const extra = change(matches, odds);
    const timeline = timelineOf(odds, extra);
    const resume: FeatureResume = { from, takeAt: new Date(T2 - 7 * DAY) };
    const got = build(T2, matches, odds, timeline, resume);
    assert.equal(resume.resumed, false, what);
    const full = build(T2, matches, odds, timeline);
    assert.equal(got.length, full.length, `${what}: a full build`);
    assertSameRows(got, full, what);
  }
});

test('a checkpoint whose state a build took over is not resumed twice; one before asOf is required', () => {
  const from = checkpointAt(T1);
  const once: FeatureResume = { from, takeAt: new Date(T2 - 7 * DAY) };
  build(T2, matchesAt(T2), league.odds, timelineOf(league.odds), once);
  assert.equal(once.resumed, true);
  const twice: FeatureResume = { from, takeAt: new Date(T2 - 7 * DAY) };
  const got = build(T2, matchesAt(T2), league.odds, timelineOf(league.odds), twice);
  assert.equal(twice.resumed, false);
  assertSameRows(got, build(T2, matchesAt(T2), league.odds, timelineOf(league.odds)), 'rebuilt');
  // A clock moved back before the checkpoint: its state holds results the build must not see.
  const back: FeatureResume = { from: checkpointAt(T2), takeAt: new Date(T1 - 7 * DAY) };
  const early = T2 - 9 * DAY;
  build(early, matchesAt(early), league.odds, timelineOf(league.odds), back);
  assert.equal(back.resumed, false);
});
