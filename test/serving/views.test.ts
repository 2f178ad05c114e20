import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  oddsRows,
  predictionRows,
  putOdds,
  putPredictions,
  putRoiCsv,
} from '../../bench/precomputed-fixtures.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { readPublished } from '../../src/runs/index.js';
import { identityOf } from '../../src/serving/encoded-body.js';
import { writeParquet } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { failures, type Harness, harness, until } from './harness.js';

const SPEC_22_FIELDS = [
  'match_id',
  'proba_home',
  'proba_draw',
  'proba_away',
  'predicted_class',
  'predicted_label',
  'is_future',
  'start_time_utc',
  'home_team_name',
  'away_team_name',
  'model_run_id',
  'model_stage',
  'predictions_computed_at',
  'odds_observed_at',
].sort();

const open: Harness[] = [];
async function setup(env: Record<string, string> = {}): Promise<Harness> {
  const h = await harness(env);
  open.push(h);
  return h;
}
after(async () => {
  await Promise.all(open.map((h) => h.cleanup()));
});

function json(buf: Buffer | undefined): Record<string, unknown> {
  assert.ok(buf, 'expected a body');
  return JSON.parse(buf.toString('utf8'));
}

describe('serving views', () => {
  test('loads predictions, odds and ROI at start', async () => {
    const h = await setup();
    const rows = predictionRows({ n: 50 });
    await putPredictions(h.deps, rows);
    await putOdds(h.deps, oddsRows(rows.map((r) => r.match_id as number)));
    await putRoiCsv(h.deps, 'region_name,roi_pct,n_bets,hit_rate,region_id\nRegion 1,3.5,10,0.5,1\n');
    await h.views.start();

    const one = json(h.views.precomputedJson(7));
    assert.deepEqual(Object.keys(one).sort(), SPEC_22_FIELDS);
    const src = rows[6];
    assert.equal(one.match_id, 7);
    assert.equal(one.proba_home, src.proba_home);
    assert.equal(one.start_time_utc, (src.start_time_utc as Date).toISOString());
    assert.equal(one.predictions_computed_at, '2026-01-01T00:00:00.000Z');
    assert.equal(h.views.precomputedJson(999), undefined);

    const bulk = JSON.parse(identityOf(h.views.predictionsBody()).toString()) as unknown[];
    assert.equal(bulk.length, 50);
    const odds = JSON.parse(identityOf(h.views.oddsBody()).toString()) as Record<string, unknown>[];
    assert.equal(odds.length, 25);
    // Spec §2.5 plus opening/closing and source, plus the additive goals-market prices and observation
    // times (null when the file lacks them).
    assert.deepEqual(
      Object.keys(odds[0]).sort(),
      [
        'close_away',
        'close_draw',
        'close_home',
        'match_id',
        'odd_away',
        'odd_draw',
        'odd_home',
        'open_away',
        'open_draw',
        'open_home',
        'source',
        ...['odd', 'open', 'close'].flatMap((p) =>
          ['over25', 'under25', 'btts_yes', 'btts_no'].map((m) => `${p}_${m}`),
        ),
        'odds_observed_at',
        'open_observed_at',
        'close_observed_at',
      ].sort(),
    );
    assert.equal(odds[0].odd_over25, null);
    const cards = JSON.parse(identityOf(h.views.cardsBody()).toString()) as Record<string, unknown>[];
    assert.equal(cards.length, 50);
    const times = cards.map((c) => Date.parse(c.start_time_utc as string));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'cards sorted by kick-off',
    );
    assert.deepEqual(await h.views.regionRoi(), [
      { region_name: 'Region 1', roi_pct: 3.5, n_bets: 10, hit_rate: 0.5, region_id: 1 },
    ]);
    const st = h.views.status();
    assert.equal(st.predictions.state, 'loaded');
    assert.equal(st.predictions.rows, 50);
    assert.equal(st.odds.rows, 25);
  });

  test('missing files: predictions unavailable (503 code), odds and ROI empty', async () => {
    const h = await setup();
    await h.views.start();
    for (const read of [
      () => h.views.predictionsBody(),
      () => h.views.cardsBody(),
      () => h.views.precomputedJson(1),
    ]) {
      assert.throws(read, (err: unknown) => {
        assert.ok(isMatchcastError(err, 'MC_ERR_PREDICTIONS_UNAVAILABLE'));
        assert.equal(err.statusCode, 503);
        assert.match(String(err.detail), /predictions\/predictions\.parquet/);
        return true;
      });
    }
    assert.equal(identityOf(h.views.oddsBody()).toString(), '[]');
    assert.deepEqual(await h.views.regionRoi(), []);
    assert.equal(h.views.status().predictions.state, 'missing');
  });

  test('a corrupt, half-written or invalid file never replaces a good view; counted once per version', async () => {
    const h = await setup();
    const good = predictionRows({ n: 30 });
    await putPredictions(h.deps, good);
    await h.views.start();
    const etag = h.views.predictionsBody().etags.identity;
    const servedEtag = h.views.status().predictions.etag;

    const before = await failures('predictions');
    await publishArtifacts(h.deps, { predictions: Buffer.from('this is not parquet') });
    await h.views.refresh();
    assert.equal(await failures('predictions'), before + 1);
    assert.equal(h.views.predictionsBody().etags.identity, etag);
    assert.equal(json(h.views.precomputedJson(3)).match_id, 3);
    assert.equal(h.views.status().predictions.etag, servedEtag);
    assert.ok(h.views.status().predictions.lastError);

    await h.views.refresh(); // same bad version: not retried, not counted again
    assert.equal(await failures('predictions'), before + 1);

    const full = writeParquet(
      (await import('../../bench/precomputed-fixtures.js')).PREDICTION_COLUMNS,
      predictionRows({ n: 30, runId: 'run-half' }),
    );
    await publishArtifacts(h.deps, { predictions: full.subarray(0, Math.floor(full.length / 2)) });
    await h.views.refresh();
    assert.equal(await failures('predictions'), before + 2);

    const invalid = predictionRows({ n: 30, runId: 'run-bad' });
    invalid[10].proba_home = 0.99; // sums to > 1
    await putPredictions(h.deps, invalid);
    await h.views.refresh();
    assert.equal(await failures('predictions'), before + 3);
    assert.equal(json(h.views.precomputedJson(1)).model_run_id, 'run-0001');

    await putPredictions(h.deps, predictionRows({ n: 30, runId: 'run-good' }));
    await h.views.refresh();
    assert.equal(json(h.views.precomputedJson(1)).model_run_id, 'run-good');
    assert.equal(h.views.status().predictions.lastError, null);
  });

  test('reloads on change by polling, and cards follow new odds', async () => {
    const h = await setup({ VIEW_REFRESH_MS: '50' });
    const rows = predictionRows({ n: 20 });
    await putPredictions(h.deps, rows);
    await h.views.start();
    const card = () =>
      (JSON.parse(identityOf(h.views.cardsBody()).toString()) as Record<string, unknown>[]).find(
        (c) => c.match_id === 1,
      );
    assert.equal(card()?.odd_home, null);

    await putPredictions(h.deps, predictionRows({ n: 25, runId: 'run-0002' }));
    await until(
      () => json(h.views.precomputedJson(1)).model_run_id === 'run-0002',
      5000,
      'predictions reload',
    );
    assert.equal((JSON.parse(identityOf(h.views.predictionsBody()).toString()) as unknown[]).length, 25);

    await putOdds(h.deps, oddsRows([1]));
    await until(() => card()?.odd_home === 2.1, 5000, 'cards to pick up odds');

    // A run published without odds (or predictions) serves none: the served set is the run's.
    await publishArtifacts(h.deps, {}, { drop: ['odds'] });
    await until(() => identityOf(h.views.oddsBody()).toString() === '[]', 5000, 'odds removal');
    assert.equal(card()?.odd_home, null);

    await publishArtifacts(h.deps, {}, { drop: ['predictions'] });
    await until(() => h.views.status().predictions.state === 'missing', 5000, 'predictions removal');
    assert.throws(
      () => h.views.cardsBody(),
      (e: unknown) => isMatchcastError(e, 'MC_ERR_PREDICTIONS_UNAVAILABLE'),
    );
  });

  test('an unreachable store keeps the loaded views serving', async () => {
    const h = await setup();
    await putPredictions(h.deps, predictionRows({ n: 10 }));
    await putOdds(h.deps, oddsRows([1, 2, 3]));
    await h.views.start();
    h.store.down = true;
    await h.views.refresh();
    assert.equal(json(h.views.precomputedJson(1)).match_id, 1);
    assert.equal((JSON.parse(identityOf(h.views.oddsBody()).toString()) as unknown[]).length, 2);
    h.store.down = false;
  });

  test('a store that is down at start: start resolves, predictions 503, and it loads once the store is back', async () => {
    const h = await setup({ VIEW_REFRESH_MS: '50', ROI_RECHECK_MS: '50' });
    await putPredictions(h.deps, predictionRows({ n: 10 }));
    await putOdds(h.deps, oddsRows([1, 2, 3]));
    await putRoiCsv(h.deps, 'region_name,roi_pct,n_bets,hit_rate,region_id\nRegion 1,3.5,10,0.5,1\n');
    h.store.down = true;
    await h.views.start();
    assert.throws(
      () => h.views.predictionsBody(),
      (e: unknown) => {
        assert.ok(isMatchcastError(e, 'MC_ERR_PREDICTIONS_UNAVAILABLE'));
        assert.match(String(e.detail), /unavailable/);
        return true;
      },
    );
    // Odds and ROI that exist but could not be read are not "no odds" / "no ROI": a coded 503, never [].
    assert.throws(
      () => h.views.oddsBody(),
      (e: unknown) => isMatchcastError(e, 'MC_ERR_STORE_UNAVAILABLE'),
    );
    await assert.rejects(h.views.regionRoi(), (e: unknown) =>
      isMatchcastError(e, 'MC_ERR_STORE_UNAVAILABLE'),
    );
    h.store.down = false;
    await until(() => h.views.status().predictions.state === 'loaded', 5000, 'load after store recovery');
    await until(() => h.views.status().odds.state === 'loaded', 5000, 'odds after store recovery');
    // The slot reads "loaded" once the file is parsed; the body is encoded just after (503 until then).
    const oddsServed = () => {
      try {
        h.views.oddsBody();
        return true;
      } catch (e) {
        assert.ok(isMatchcastError(e, 'MC_ERR_STORE_UNAVAILABLE'));
        return false;
      }
    };
    await until(oddsServed, 5000, 'odds body after store recovery');
    assert.equal((JSON.parse(identityOf(h.views.oddsBody()).toString()) as unknown[]).length, 2);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal((await h.views.regionRoi())[0]?.roi_pct, 3.5);
  });

  test('ROI moves with the published run; requests never call the store for an unmoved run', async () => {
    const h = await setup({ ROI_RECHECK_MS: '50' });
    await putRoiCsv(h.deps, 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,1.5,3,0.5,1\n');
    await h.views.start();
    const roiReads = async () => {
      const ref = (await readPublished(h.db))?.artifacts.roiByRegion;
      return ref ? h.store.count('get', ref.bucket, ref.key) : 0;
    };
    assert.equal((await h.views.regionRoi())[0].roi_pct, 1.5);
    assert.equal(await roiReads(), 1, 'read once at start');

    // Past the re-check interval, an unmoved pointer means the same immutable file: no store call.
    await new Promise((r) => setTimeout(r, 80));
    for (let i = 0; i < 20; i++) assert.equal((await h.views.regionRoi())[0].roi_pct, 1.5);
    assert.equal(await roiReads(), 1, 'no store call while the published run is unchanged');

    // A newly published run is not served before the views poll the pointer, then it is.
    await putRoiCsv(h.deps, 'region_name,roi_pct,n_bets,hit_rate,region_id\nA,-7.25,4,0.25,1\n');
    assert.equal((await h.views.regionRoi())[0].roi_pct, 1.5);
    await h.views.refresh();
    assert.equal((await h.views.regionRoi())[0].roi_pct, -7.25);
    assert.equal(await roiReads(), 1, "the new run's file read once");

    // A broken CSV keeps the previous rows and is counted.
    const before = await failures('region_roi');
    await putRoiCsv(h.deps, 'region_name,roi_pct\nA,zz\n');
    await h.views.refresh();
    assert.equal((await h.views.regionRoi())[0].roi_pct, -7.25);
    assert.equal(await failures('region_roi'), before + 1);

    // A run published without ROI serves none.
    await publishArtifacts(h.deps, {}, { drop: ['roiByRegion'] });
    await h.views.refresh();
    assert.deepEqual(await h.views.regionRoi(), []);
  });
});
