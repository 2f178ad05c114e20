import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDriftStage, runSimulateStage } from '../../src/analytics/index.js';
import { ROI_BY_REGION_COLUMNS } from '../../src/schemas/index.js';
import { type Env, generateLeague, setupEnv } from './synthetic.js';

// Six seasons of two 16-team leagues. Seasons 1–2 are the ratings' warm-up, 3–5 the champion's
// training rows (the reference), 6 the current window. The injected shift: home advantage (log-goal)
// 0.3 → 0 from season 6 on — ghost games — in results and in the odds.
const FIRST = new Date('2016-08-06T15:00:00Z');
const LAST_SEASON = new Date('2021-08-06T15:00:00Z');
const CUTOFF = new Date('2021-08-01T00:00:00Z');
const REFERENCE_FROM = new Date('2018-08-01T00:00:00Z');
const BACKTEST_FROM = new Date('2020-08-01T00:00:00Z');
// One day before the last round: one round (16 matches) is still in the future.
const AS_OF = new Date(LAST_SEASON.getTime() + 29 * 7 * 86_400_000 - 86_400_000);
// The window covers the whole last season (a season-long window compares like with like: a 30-day
// slice differs from whole-season reference rows by the season's phase alone).
const WINDOW_DAYS = 240;

/**
 * Features a home-advantage change can move: venue-specific form, home/away pi ratings, the market,
 * and the market-implied ratings (their region home term follows the closing odds, with a lag).
 */
const HOME_ADVANTAGE_DRIVEN = /^(mkt_|mr_|form_venue_|pi_)/;

function league(shift: boolean) {
  return generateLeague({
    seed: 42,
    homeAdvantage: 0.3,
    shift: shift ? { from: CUTOFF, homeAdvantage: 0 } : undefined,
    seasons: 6,
    teams: 16,
    regions: ['Alpha', 'Beta'],
    firstSeasonStart: FIRST,
    asOf: AS_OF,
  });
}

describe('drift stage on synthetic data', () => {
  let shifted: Env;
  let stable: Env;
  before(async () => {
    shifted = await setupEnv(league(true), AS_OF, CUTOFF, BACKTEST_FROM);
    stable = await setupEnv(league(false), AS_OF, CUTOFF, BACKTEST_FROM);
  });
  after(async () => {
    await shifted?.close();
    await stable?.close();
  });

  test('an injected home-advantage shift is flagged on the features it drives, and only there', async () => {
    const now = new Date('2022-03-01T10:00:00Z');
    const res = await runDriftStage(shifted.deps, {
      asOf: AS_OF,
      windowDays: WINDOW_DAYS,
      referenceFrom: REFERENCE_FROM,
      now,
    });
    const drifted = res.latest.drifted_features;
    for (const f of ['mkt_home', 'mkt_away', 'mkt_logit_home_away', 'form_venue_points_home']) {
      assert.ok(drifted.includes(f), `${f} should drift; drifted: ${drifted.join(', ')}`);
    }
    const unexpected = drifted.filter((f) => !HOME_ADVANTAGE_DRIVEN.test(f));
    assert.deepEqual(unexpected, [], 'features that a home-advantage change cannot move must not drift');
    for (const f of ['elo_expected_home', 'rest_days_home', 'season_played_home', 'form_points_home']) {
      assert.equal(res.latest.features.find((x) => x.feature === f)?.drifted, false, f);
    }
    assert.ok(res.latest.drift_score! > 0.2, String(res.latest.drift_score));
    assert.equal(res.latest.n_drifted, drifted.length);
    assert.equal(res.latest.drift_score, drifted.length / res.latest.n_features);
    // Prediction drift: the served home-win probabilities moved with the market.
    assert.ok(res.report.predictions?.features.find((f) => f.feature === 'proba_home')?.drifted);
    // The window: the whole last season (464 finished) plus the 16 future matches.
    assert.equal(res.report.current.n_future, 16);
    assert.equal(res.report.current.n_rows, 480);
    assert.equal(res.report.reference.n_rows, 3 * 480);
    assert.equal(res.report.performance.n_matches, 464);
    assert.equal(res.report.performance.validation_log_loss, 1);
    assert.ok(res.report.performance.log_loss! > 0.9 && res.report.performance.log_loss! < 1.2);

    // Artifacts: both HTML reports and drift_latest.json naming them, all in the reports bucket.
    assert.equal(res.latest.report_filename, 'drift_report_20220301T100000Z.html');
    assert.equal(res.latest.data_quality_filename, 'data_quality_20220301T100000Z.html');
    const stored = JSON.parse(
      (await shifted.deps.store.get('reports', 'drift_latest.json'))!.body.toString(),
    );
    assert.equal(stored.drift_score, res.latest.drift_score);
    assert.equal(stored.n_features, res.latest.n_features);
    assert.equal(stored.window.days, WINDOW_DAYS);
    assert.equal(typeof stored.feature_scores.mkt_home, 'number');
    const html = (await shifted.deps.store.get('reports', res.latest.report_filename))!;
    assert.match(html.contentType ?? '', /text\/html/);
    const text = html.body.toString();
    assert.ok(text.indexOf('Summary') < text.indexOf('Histograms'), 'summary comes first');
    assert.ok((text.match(/<svg/g) ?? []).length >= res.latest.n_features);
    assert.doesNotMatch(text, /<script|<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  test('old reports are pruned beyond keepReports', async () => {
    for (const day of ['01', '02', '03']) {
      await runDriftStage(stable.deps, {
        asOf: AS_OF,
        windowDays: WINDOW_DAYS,
        referenceFrom: REFERENCE_FROM,
        now: new Date(`2022-04-${day}T00:00:00Z`),
        keepReports: 2,
      });
    }
    const names = (await stable.deps.store.list('reports'))
      .map((o) => o.key)
      .filter((k) => k.endsWith('.html'));
    assert.deepEqual(names.sort(), [
      'data_quality_20220402T000000Z.html',
      'data_quality_20220403T000000Z.html',
      'drift_report_20220402T000000Z.html',
      'drift_report_20220403T000000Z.html',
    ]);
  });

  test('without a shift the drift score stays low', async () => {
    const res = await runDriftStage(stable.deps, {
      asOf: AS_OF,
      windowDays: WINDOW_DAYS,
      referenceFrom: REFERENCE_FROM,
    });
    assert.ok(
      res.latest.drift_score !== null && res.latest.drift_score <= 0.1,
      JSON.stringify(res.latest.drifted_features),
    );
    assert.ok(!res.latest.drifted_features.some((f) => f.startsWith('mkt_')));
    assert.equal(res.report.predictions?.n_drifted, 0);
    assert.equal(res.dataQuality.checks.find((c) => c.id === 'duplicates')?.status, 'ok');
    assert.equal(res.dataQuality.checks.find((c) => c.id === 'impossible_odds')?.status, 'ok');
    assert.equal(res.dataQuality.checks.find((c) => c.id === 'stale_data')?.status, 'ok');
  });

  test('simulate stage writes roi_by_region.csv for every region, baselines and per-season figures', async () => {
    const res = await runSimulateStage(stable.deps, { asOf: AS_OF });
    const csv = (await stable.deps.store.get('reports', 'roi_by_region.csv'))!.body
      .toString()
      .trim()
      .split('\n');
    assert.equal(csv[0], ROI_BY_REGION_COLUMNS.join(','));
    assert.deepEqual(
      csv.slice(1).map((l) => l.split(',')[0]),
      ['Alpha', 'Beta'],
    );
    // Backtest = two finished seasons (out of sample); closing odds carry a 5 % margin over the truth
    // and the stand-in model IS the market, so it can find no edge above 5 %: no bets, honest nulls.
    assert.equal(res.summary.n_candidates, 2 * 480 - 16);
    assert.equal(res.summary.model.n_bets, 0);
    assert.match(csv[1], /^Alpha,,0,,\d+$/);
    assert.equal(res.summary.baselines.home.n_bets, res.summary.n_candidates);
    assert.equal(res.summary.baselines.favourite.n_bets, res.summary.n_candidates);
    assert.ok(Math.abs(res.summary.baselines.favourite.roi_pct!) < 15);
    const baselines = (await stable.deps.store.get('reports', 'roi_baselines.csv'))!.body.toString();
    assert.match(baselines, /^strategy,region_name,roi_pct,n_bets,hit_rate,profit,region_id\n/);
    assert.match(baselines, /\nhome,ALL,-?\d/);
    const seasons = (await stable.deps.store.get('reports', 'roi_by_region_season.csv'))!.body.toString();
    assert.match(seasons, /\nAlpha,2020-2021,,0,,0,\d+\n/);
    // Opening odds carry a 7 % margin: still no edge for the market stand-in.
    const opening = await runSimulateStage(stable.deps, {
      asOf: AS_OF,
      oddsSource: 'opening',
      edgeThreshold: 0,
    });
    assert.equal(opening.summary.odds_source, 'opening');
    assert.equal(opening.summary.model.n_bets, 0);
  });
});
