import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDriftStage } from '../../src/analytics/index.js';
import { MatchesRepository } from '../../src/db/index.js';
import { streamSyntheticLeague } from '../../src/ingest/synthetic.js';
import { readFeatureRows } from '../../src/pipeline/artifacts.js';
import { type Env, fromSyntheticLeague, setupEnv } from './synthetic.js';

// The ingest engineer's generator with its home-advantage shift option: six seasons of two 16-team
// regions, the current season ~60 % played at as-of, the rest scheduled (future, with opening odds).
// Shift: home advantage −0.3 on the home side's log goal rate from the current season's first match.
const AS_OF = new Date('2022-03-01T00:00:00Z');
const OPTIONS = { seed: 42, now: AS_OF, regions: 2, teamsPerRegion: 16, seasons: 6 } as const;

const probe = [...streamSyntheticLeague(OPTIONS).seasons].flat();
const seasons = [...new Set(probe.map((m) => m.match.season))].sort();
const startOf = (s: string) => probe.find((m) => m.match.season === s)!.match.startTimeUtc;
const CURRENT = startOf(seasons[5]);
const CUTOFF = new Date(CURRENT.getTime() - 86_400_000);
// Window = the current season's played part plus its fixtures (phase-matched to whole-season rows
// as far as the season goes).
const WINDOW_DAYS = Math.ceil((AS_OF.getTime() - CURRENT.getTime()) / 86_400_000) + 1;
const OPTS = { asOf: AS_OF, windowDays: WINDOW_DAYS, referenceFrom: startOf(seasons[2]) };

/** Cannot move with a home-advantage change: team ratings (venue-free Elo, pi), rest, promotion. */
const UNAFFECTED = /^(elo_|rest_days_|new_team_|mkt_missing)/;

describe('drift stage on the synthetic league with homeAdvantageShift', () => {
  let shifted: Env;
  let stable: Env;
  before(async () => {
    const league = (delta?: number) =>
      fromSyntheticLeague({
        matches: [
          ...streamSyntheticLeague({
            ...OPTIONS,
            homeAdvantageShift: delta === undefined ? undefined : { from: CURRENT, delta },
          }).seasons,
        ].flat(),
      });
    shifted = await setupEnv(league(-0.3), AS_OF, CUTOFF, startOf(seasons[4]));
    stable = await setupEnv(league(), AS_OF, CUTOFF, startOf(seasons[4]));
  });
  after(async () => {
    await shifted?.close();
    await stable?.close();
  });

  test('the shift is flagged on the market and form features, not on ratings, rest or promotion', async () => {
    const res = await runDriftStage(shifted.deps, OPTS);
    const drifted = res.latest.drifted_features;
    for (const f of ['mkt_home', 'mkt_draw', 'mkt_away', 'mkt_logit_home_away', 'form_venue_points_home']) {
      assert.ok(drifted.includes(f), `${f} should drift; drifted: ${drifted.join(', ')}`);
    }
    const wrong = res.latest.features
      .filter((f) => UNAFFECTED.test(f.feature) && f.drifted)
      .map((f) => f.feature);
    assert.deepEqual(wrong, []);
    assert.ok(res.report.predictions?.features.find((f) => f.feature === 'proba_home')?.drifted);
    assert.ok(res.report.current.n_future > 0 && res.report.current.n_finished > 0);
  });

  test('without the shift only calendar features (season_played_*) may drift; the score stays low', async () => {
    const res = await runDriftStage(stable.deps, OPTS);
    const drifted = res.latest.drifted_features;
    assert.deepEqual(
      drifted.filter((f) => !f.startsWith('season_played_')),
      [],
    );
    assert.ok(res.latest.drift_score! <= 0.1, String(res.latest.drift_score));
    assert.equal(res.report.predictions?.n_drifted, 0);
  });

  test('a run passing the matches and feature rows it holds gets the same reports as one that reads them', async () => {
    const now = new Date('2022-03-02T00:00:00Z');
    const read = await runDriftStage(shifted.deps, { ...OPTS, now });
    const loaded = {
      matches: await new MatchesRepository(shifted.deps.db).allMatches(),
      featureRows: await readFeatureRows(shifted.deps),
    };
    const held = await runDriftStage({ ...shifted.deps, loaded }, { ...OPTS, now });
    assert.deepEqual(held.report, read.report);
    assert.deepEqual(held.dataQuality, read.dataQuality);
    assert.ok(held.report.reference.n_rows > 0 && held.report.current.n_rows > 0);
  });
});
