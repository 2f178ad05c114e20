import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import {
  oddsRows,
  predictionRows,
  putOdds,
  putPredictions,
  putRoiCsv,
} from '../../bench/precomputed-fixtures.js';
import { API_KEY, type Harness, harness } from '../serving/harness.js';
import { precomputedApp } from './precomputed-app.js';

const SPEC_21_FIELDS = [
  'match_id',
  'homeTeamName',
  'awayTeamName',
  'startTimeUtc',
  'proba_home',
  'proba_draw',
  'proba_away',
  'predicted_class',
  'predicted_label',
  'is_future',
  'model_stage',
  'model_run_id',
  // Additive: when the odds behind the prediction were observed.
  'odds_observed_at',
].sort();
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
const CARD_FIELDS = [
  'match_id',
  'start_time_utc',
  'home_team_name',
  'away_team_name',
  'region_id',
  'region_name',
  'tournament_name',
  'season',
  'status',
  'is_future',
  'proba_home',
  'proba_draw',
  'proba_away',
  'predicted_class',
  'predicted_label',
  'odd_home',
  'odd_draw',
  'odd_away',
  'home_score',
  'away_score',
  'outcome',
  'outcome_label',
  'prediction_correct',
  'bookmaker_url',
  'model_stage',
  'model_run_id',
  'predictions_computed_at',
  'odds_observed_at',
  // Goals markets: additive, null without a markets file.
  'expected_home_goals',
  'expected_away_goals',
  'proba_over_2_5',
  'proba_btts_yes',
  'odd_over_2_5',
  'odd_under_2_5',
  'odd_btts_yes',
  'odd_btts_no',
  'edge_over_2_5',
  'edge_under_2_5',
  'edge_btts_yes',
  'edge_btts_no',
  'top_score',
  // Additive: the 1X2 edges, the prices the prediction used and the closing prices, apart.
  'edge_home',
  'edge_draw',
  'edge_away',
  'used_odd_home',
  'used_odd_draw',
  'used_odd_away',
  'used_odd_over_2_5',
  'used_odd_under_2_5',
  'used_odd_btts_yes',
  'used_odd_btts_no',
  'close_odd_home',
  'close_odd_draw',
  'close_odd_away',
  'close_observed_at',
].sort();

const auth = { 'x-api-key': API_KEY };
const N = 120;

for (const [label, identityMaxBytes] of [
  ['identity held', undefined],
  ['identity streamed from gzip', 0],
] as const)
  describe(`precomputed routes (loaded, ${label})`, () => {
    let h: Harness;
    let app: FastifyInstance;
    const rows = predictionRows({ n: N, future: 30 });

    before(async () => {
      h = await harness({}, { identityMaxBytes });
      await putPredictions(h.deps, rows);
      await putOdds(h.deps, oddsRows(rows.map((r) => r.match_id as number)));
      await putRoiCsv(
        h.deps,
        'region_name,roi_pct,n_bets,hit_rate,region_id\nRegion 1,3.5,10,0.5,1\nNone,,0,,\n',
      );
      await h.views.start();
      app = await precomputedApp(h);
    });
    after(async () => {
      await app?.close();
      await h?.cleanup();
    });

    test('every route requires the API key', async () => {
      for (const url of [
        '/predict/predictions/',
        '/predict/precomputed/1',
        '/predict/cards/',
        '/predict/odds/',
        '/predict/region-roi/',
      ]) {
        const res = await app.inject({ url });
        assert.equal(res.statusCode, 401, url);
        const wrong = await app.inject({ url, headers: { 'x-api-key': 'nope-nope-nope-nope' } });
        assert.equal(wrong.statusCode, 401, url);
      }
    });

    test('GET /predict/predictions/: spec 2.1 fields exactly, all rows, future and past', async () => {
      const res = await app.inject({ url: '/predict/predictions/', headers: auth });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.equal(res.headers['content-encoding'], undefined);
      const body = res.json() as Record<string, unknown>[];
      assert.equal(body.length, N);
      for (const row of body) assert.deepEqual(Object.keys(row).sort(), SPEC_21_FIELDS);
      assert.equal(body.filter((r) => r.is_future === true).length, 30);
      assert.equal(body.filter((r) => r.is_future === false).length, N - 30);
      const src = rows.find((r) => r.match_id === body[0].match_id);
      assert.ok(src);
      assert.equal(body[0].homeTeamName, src.home_team_name);
      assert.equal(body[0].startTimeUtc, (src.start_time_utc as Date).toISOString());
    });

    for (const url of ['/predict/predictions/', '/predict/cards/', '/predict/odds/']) {
      test(`${url}: gzip and br decode to the identity body; ETag + If-None-Match → 304`, async () => {
        const plain = await app.inject({ url, headers: auth });
        const gz = await app.inject({ url, headers: { ...auth, 'accept-encoding': 'gzip' } });
        const br = await app.inject({ url, headers: { ...auth, 'accept-encoding': 'gzip, deflate, br' } });
        assert.equal(gz.headers['content-encoding'], 'gzip');
        assert.equal(br.headers['content-encoding'], 'br');
        assert.deepEqual(gunzipSync(gz.rawPayload), plain.rawPayload);
        assert.deepEqual(brotliDecompressSync(br.rawPayload), plain.rawPayload);
        assert.ok(br.rawPayload.length < plain.rawPayload.length);

        const etag = String(plain.headers.etag);
        assert.match(etag, /^"[^"]+"$/, 'strong ETag');
        const again = await app.inject({ url, headers: { ...auth, 'if-none-match': etag } });
        assert.equal(again.statusCode, 304);
        assert.equal(again.rawPayload.length, 0);
        assert.equal(again.headers.etag, etag);
        const brAgain = await app.inject({
          url,
          headers: { ...auth, 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) },
        });
        assert.equal(brAgain.statusCode, 304);
        const stale = await app.inject({ url, headers: { ...auth, 'if-none-match': '"stale"' } });
        assert.equal(stale.statusCode, 200);
      });
    }

    test('GET /predict/precomputed/:id: spec 2.2 fields exactly; 404; 422 on bad ids', async () => {
      const res = await app.inject({ url: '/predict/precomputed/5', headers: auth });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json() as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), SPEC_22_FIELDS);
      assert.equal(body.match_id, 5);
      assert.equal(body.model_run_id, 'run-0001');

      const missing = await app.inject({ url: '/predict/precomputed/999999', headers: auth });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().code, 'MC_ERR_MATCH_NOT_FOUND');
      assert.equal(typeof missing.json().detail, 'string');

      for (const bad of ['abc', '0', '-3', '1.5']) {
        const r = await app.inject({ url: `/predict/precomputed/${bad}`, headers: auth });
        assert.equal(r.statusCode, 422, bad);
        assert.ok(Array.isArray(r.json().detail));
      }
    });

    test('GET /predict/cards/: contract fields, outcome only when finished, odds joined, bookmaker URL', async () => {
      const res = await app.inject({ url: '/predict/cards/', headers: auth });
      assert.equal(res.statusCode, 200);
      const cards = res.json() as Record<string, unknown>[];
      assert.equal(cards.length, N);
      for (const c of cards) {
        assert.deepEqual(Object.keys(c).sort(), CARD_FIELDS);
        if (c.status === 'finished') {
          assert.equal(c.is_future, false);
          assert.ok([0, 1, 2].includes(c.outcome as number));
          assert.equal(c.prediction_correct, c.outcome === c.predicted_class);
          assert.equal(typeof c.home_score, 'number');
        } else {
          assert.equal(c.outcome, null);
          assert.equal(c.outcome_label, null);
          assert.equal(c.prediction_correct, null);
          assert.equal(c.home_score, null);
        }
      }
      assert.equal(cards.filter((c) => c.status === 'scheduled').length, 30);
      const withOdds = cards.find((c) => c.match_id === 1);
      const without = cards.find((c) => c.match_id === 2);
      assert.equal(withOdds?.odd_home, 2.1);
      assert.equal(without?.odd_home, null);
      assert.equal(
        withOdds?.bookmaker_url,
        `https://bookie.example/match/1?h=${encodeURIComponent(String(withOdds?.home_team_name))}&a=${encodeURIComponent(String(withOdds?.away_team_name))}`,
      );
    });

    test('GET /predict/odds/ and /predict/region-roi/', async () => {
      const odds = await app.inject({ url: '/predict/odds/', headers: auth });
      assert.equal(odds.statusCode, 200);
      const list = odds.json() as Record<string, unknown>[];
      assert.equal(list.length, N / 2);
      assert.equal(list[0].odd_home, 2.1);
      const roi = await app.inject({ url: '/predict/region-roi/', headers: auth });
      assert.equal(roi.statusCode, 200);
      assert.deepEqual(roi.json(), [
        { region_name: 'Region 1', roi_pct: 3.5, n_bets: 10, hit_rate: 0.5, region_id: 1 },
        { region_name: 'None', roi_pct: null, n_bets: 0, hit_rate: null, region_id: null },
      ]);
    });
  });

describe('precomputed routes (no artifacts)', () => {
  let h: Harness;
  let app: FastifyInstance;
  before(async () => {
    h = await harness();
    await h.views.start();
    app = await precomputedApp(h);
  });
  after(async () => {
    await app?.close();
    await h?.cleanup();
  });

  test('predictions, precomputed and cards answer 503 with a clear detail', async () => {
    for (const url of ['/predict/predictions/', '/predict/precomputed/1', '/predict/cards/']) {
      const res = await app.inject({ url, headers: auth });
      assert.equal(res.statusCode, 503, url);
      assert.equal(res.json().code, 'MC_ERR_PREDICTIONS_UNAVAILABLE');
      assert.match(res.json().detail, /predictions\/predictions\.parquet does not exist/);
    }
  });

  test('odds and region ROI answer [] when their files do not exist', async () => {
    for (const url of ['/predict/odds/', '/predict/region-roi/']) {
      const res = await app.inject({ url, headers: auth });
      assert.equal(res.statusCode, 200, url);
      assert.deepEqual(res.json(), []);
    }
    const gz = await app.inject({ url: '/predict/odds/', headers: { ...auth, 'accept-encoding': 'gzip' } });
    assert.equal(gunzipSync(gz.rawPayload).toString(), '[]');
  });
});
