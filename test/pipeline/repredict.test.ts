import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { KEYS, ODDS_OBSERVATIONS, type OddsObservation, OddsTimeline } from '../../src/domain/index.js';
import { buildFeatureRows, toModelInput } from '../../src/features/index.js';
import { readObservationSet, readOddsFile, readOddsSet } from '../../src/ingest/index.js';
import { OBSERVATION_COLUMNS } from '../../src/ingest/observation-columns.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { ODDS_COLUMNS } from '../../src/ingest/odds-columns.js';
import { mergeOddsFile, summariseOdds } from '../../src/ingest/odds-file.js';
import { deserializeModel, predictProba } from '../../src/model/index.js';
import { bootstrapFirstRun, type RepredictCache, repredictMatches } from '../../src/pipeline/index.js';
import { readOddsMap, readOddsTimeline } from '../../src/pipeline/odds.js';
import type { PredictionRow } from '../../src/pipeline/predictions-file.js';
import { decodePredictionRows } from '../../src/pipeline/repredict.js';
import { fallbackModelName } from '../../src/pipeline/stage-fallback.js';
import { ModelRegistry } from '../../src/registry/index.js';
import { readArtifact, readPublished, readRunRecord } from '../../src/runs/index.js';
import { writeParquet } from '../../src/storage/index.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

async function served(env: TestEnv): Promise<PredictionRow[]> {
  const obj = await readArtifact(env.deps, 'predictions');
  assert.ok(obj);
  return decodePredictionRows(obj.body);
}

describe('incremental re-prediction when new odds arrive', () => {
  let env: TestEnv;
  before(async () => {
    env = await openTestEnv(smallLeague());
    await bootstrapFirstRun(env.deps, AS_OF, {
      backtestFrom: new Date('2022-08-01Z'),
      refitDays: 90,
      analytics: {},
    });
  });
  after(async () => {
    await env?.close();
  });

  test('only the touched rows change, as a full rebuild would compute them; the rest is inherited', async () => {
    const before = await served(env);
    const parent = await readPublished(env.deps.db);
    assert.ok(parent);
    // One round (four fixtures) of one region get new (much shorter) home prices.
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const region = matches[0]!.regionId;
    const touched = matches
      .filter((m) => m.regionId === region && m.startTimeUtc >= AS_OF)
      .slice(0, 4)
      .map((m) => m.id);
    assert.equal(touched.length, 4); // one round of 8 teams
    // The clock has moved to just before their round: the opening prices (stamped k − 48 h) are observed.
    const kick = Math.min(
      ...matches.filter((m) => touched.includes(m.id)).map((m) => m.startTimeUtc.getTime()),
    );
    const now = new Date(kick - 3_600_000);
    const odds = await readOddsFile(env.deps.store);
    for (const o of odds) {
      if (!touched.includes(o.match_id)) continue;
      for (const k of ['odd_home', 'open_home', 'close_home'] as const) o[k] = 1.25;
      for (const k of ['odd_away', 'open_away', 'close_away'] as const) o[k] = 12;
    }
    await env.deps.store.put(KEYS.odds.bucket, KEYS.odds.key, writeParquet(ODDS_COLUMNS, odds as never));

    const wallBefore = Date.now();
    const r = await repredictMatches(env.deps, touched, { asOf: now, analytics: {} });
    assert.equal(r.repredicted, 4);
    assert.ok(r.published && r.run_id, r.reason ?? 'published');
    // Like a full run's rows, the new rows say when they were computed (wall clock), not the as-of.
    for (const row of await served(env)) {
      if (!touched.includes(row.match_id)) continue;
      const at = new Date(row.predictions_computed_at).getTime();
      assert.ok(at >= wallBefore && at <= Date.now(), `computed_at ${row.predictions_computed_at}`);
    }

    const after = await served(env);
    assert.equal(after.length, before.length);
    const byId = new Map(after.map((x) => [x.match_id, x]));
    for (const old of before) {
      if (touched.includes(old.match_id)) continue;
      assert.deepEqual(byId.get(old.match_id), old, `row ${old.match_id} untouched`);
    }
    // The expected values: features of ALL matches (not just the region) as of AS_OF, the champion.
    const champion = (await env.deps.registry.resolve('champion'))!;
    const model = deserializeModel((await env.deps.registry.loadArtifact(champion)).toString('utf8'));
    const oddsMap = await readOddsMap(env.deps.store);
    const full = buildFeatureRows(matches, oddsMap, now, {
      observations: await readOddsTimeline(env.deps, oddsMap, matches),
      horizon: { at: now },
    });
    for (const id of touched) {
      const f = full.find((x) => x.match_id === id)!;
      const want = predictProba(model, toModelInput(f, champion.feature_names));
      const got = byId.get(id)!;
      assert.ok(Math.abs(got.proba_home - want[0]) < 1e-12 && Math.abs(got.proba_away - want[2]) < 1e-12);
      const old = before.find((x) => x.match_id === id)!;
      assert.ok(got.proba_home > old.proba_home, 'the home probability follows the shorter home price');
    }
    // The run wrote predictions and odds; features and backtest are the parent's objects.
    const pub = (await readPublished(env.deps.db))!;
    assert.equal(pub.run_id, r.run_id);
    assert.equal((await readRunRecord(env.deps.db, r.run_id!))?.kind, 'incremental');
    assert.equal(pub.artifacts.features?.key, parent.artifacts.features?.key);
    assert.equal(pub.artifacts.backtest?.key, parent.artifacts.backtest?.key);
    assert.notEqual(pub.artifacts.predictions?.key, parent.artifacts.predictions?.key);

    // Nothing new: nothing published.
    const again = await repredictMatches(env.deps, [touched[0]! + 1_000_000], { asOf: now, analytics: {} });
    assert.equal(again.published, null);
  });

  test('a cached decode of the odds and observation files is dropped when the object changes', async () => {
    const store = env.deps.store;
    const a = await readOddsSet(store);
    const b = await readOddsSet(store);
    assert.ok(a && b);
    assert.equal(b.value, a.value, 'unchanged file: the decoded copy is reused');
    // Rewritten behind the cache's back (another process, a test): a new etag, decoded again.
    const records = (await readOddsFile(store)).map((r) => ({ ...r }));
    records[0]!.odd_home = 1.11;
    await store.put(KEYS.odds.bucket, KEYS.odds.key, writeParquet(ODDS_COLUMNS, records as never));
    const c = await readOddsSet(store);
    assert.ok(c);
    assert.notEqual(c.etag, a.etag);
    assert.notEqual(c.value, a.value);
    assert.equal(c.value.byId.get(records[0]!.match_id)?.odd_home, 1.11);

    const obs: OddsObservation = {
      match_id: records[0]!.match_id,
      market: '1x2',
      kind: 'intermediate',
      observed_at: new Date('2023-01-01T12:00:00Z'),
      prices: [2.1, 3.3, 3.6],
      source: 'cache-test',
    };
    const before = await readObservationSet({ db: env.deps.db, store });
    await mergeOddsObservations({ db: env.deps.db, store }, [obs]);
    const merged = await readObservationSet({ db: env.deps.db, store });
    assert.ok(merged);
    assert.notEqual(merged.value, before?.value);
    assert.ok(merged.value.byMatch.get(obs.match_id)?.some((o) => o.source === 'cache-test'));
    // A different file put directly under the current name: decoded from its bytes, not the set the
    // merge left.
    const [current] = await env.deps.db.query<{ key: string }>('SELECT key FROM odds_observation_sets');
    assert.ok(current);
    await store.put(
      ODDS_OBSERVATIONS.bucket,
      current.key,
      writeParquet(OBSERVATION_COLUMNS, [
        { ...obs, observed_at: obs.observed_at, price_1: 9.5, price_2: 5, price_3: 1.3 },
      ] as never),
    );
    const direct = await readObservationSet({ db: env.deps.db, store });
    assert.ok(direct);
    assert.equal(direct.value.all.length, 1);
    assert.deepEqual(direct.value.all[0]!.prices, [9.5, 5, 1.3]);
  });

  test('a re-prediction after a new observation uses it and nothing observed later', async () => {
    const store = env.deps.store;
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const fixture = matches.find((m) => m.startTimeUtc.getTime() > AS_OF.getTime() + 20 * 86_400_000)!;
    const kick = fixture.startTimeUtc.getTime();
    const now = new Date(kick - 6 * 3_600_000);
    const seen = new Date(now.getTime() - 3_600_000);
    const later = new Date(now.getTime() + 3_600_000);
    const obs = (at: Date, prices: number[]): OddsObservation => ({
      match_id: fixture.id,
      market: '1x2',
      kind: 'intermediate',
      observed_at: at,
      prices,
      source: 'feed',
    });
    // What ingest does with an odds-only file: merge the observations, then re-summarise the match.
    const ingestObservations = async (list: OddsObservation[]) => {
      const merged = await mergeOddsObservations({ db: env.deps.db, store }, list);
      const [[, mine]] = [...merged.observationsOf(new Set([fixture.id]))];
      await mergeOddsFile(store, [summariseOdds(fixture.id, OddsTimeline.from(mine))!]);
    };
    const cache: RepredictCache = {};
    // A first call warms the cache (decoded files, feature checkpoints) before the new odds arrive.
    await repredictMatches(env.deps, [fixture.id], {
      asOf: new Date(now.getTime() - 86_400_000),
      cache,
      analytics: {},
    });
    await ingestObservations([obs(seen, [1.3, 5.5, 10]), obs(later, [9, 5, 1.35])]);

    const r = await repredictMatches(env.deps, [fixture.id], { asOf: now, cache, analytics: {} });
    assert.equal(r.repredicted, 1);
    assert.ok(r.published, r.reason ?? 'published');
    const row = (await served(env)).find((x) => x.match_id === fixture.id)!;
    assert.equal(
      row.odds_observed_at?.getTime(),
      seen.getTime(),
      'the observation made before now, not the later one',
    );
    // Exactly what a full build as of `now` computes, and not what the later observation gives.
    const champion = (await env.deps.registry.resolve('champion'))!;
    const model = deserializeModel((await env.deps.registry.loadArtifact(champion)).toString('utf8'));
    const oddsMap = await readOddsMap(store);
    const timeline = await readOddsTimeline({ db: env.deps.db, store }, oddsMap, matches);
    const probaAt = (at: Date) => {
      const f = buildFeatureRows(matches, oddsMap, at, { observations: timeline, horizon: { at } }).find(
        (x) => x.match_id === fixture.id,
      )!;
      return predictProba(model, toModelInput(f, champion.feature_names));
    };
    const want = probaAt(now);
    assert.ok(Math.abs(row.proba_home - want[0]) < 1e-12 && Math.abs(row.proba_away - want[2]) < 1e-12);
    const leaked = probaAt(new Date(later.getTime() + 60_000));
    // (The small league's ratings are extreme; the odds move the away probability by orders of magnitude.)
    assert.ok(leaked[2] > row.proba_away * 5, 'the later (long home) price is not used yet');

    // The clock passes the later observation: the next call (same cache) uses it.
    const next = new Date(later.getTime() + 60_000);
    await repredictMatches(env.deps, [fixture.id], { asOf: next, cache, analytics: {} });
    const row2 = (await served(env)).find((x) => x.match_id === fixture.id)!;
    assert.equal(row2.odds_observed_at?.getTime(), later.getTime());
    assert.ok(Math.abs(row2.proba_home - leaked[0]) < 1e-12 && Math.abs(row2.proba_away - leaked[2]) < 1e-12);
  });

  test('matches held by the cache follow the database: a result written between calls is used', async () => {
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const m = matches.find((x) => x.startTimeUtc.getTime() > AS_OF.getTime() + 40 * 86_400_000)!;
    const cache: RepredictCache = {};
    const after = new Date(m.startTimeUtc.getTime() + 3 * 3_600_000);
    await repredictMatches(env.deps, [m.id], { asOf: after, cache, analytics: {} });
    const first = (await served(env)).find((x) => x.match_id === m.id)!;
    assert.equal(first.home_score, m.homeScore);
    // A corrected result (another writer, between two calls of the same process).
    await env.deps.db.query(
      'UPDATE matches SET home_score = home_score + 5, updated_at = now() WHERE id = $1',
      [m.id],
    );
    const r = await repredictMatches(env.deps, [m.id], { asOf: after, cache, analytics: {} });
    assert.ok(r.published, r.reason ?? 'published');
    const second = (await served(env)).find((x) => x.match_id === m.id)!;
    assert.equal(second.home_score, (m.homeScore ?? 0) + 5);
  });

  test('a fixture with no odds is re-predicted by the market-free fallback, labelled so, and keeps the label', async () => {
    const store = env.deps.store;
    const fallbackRegistry = new ModelRegistry(env.deps, fallbackModelName(env.deps.config.modelName));
    const fallback = await fallbackRegistry.resolve('champion');
    assert.ok(fallback, 'the first run registered a market-free fallback');
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const m = matches.find((x) => x.startTimeUtc.getTime() > AS_OF.getTime() + 20 * 86_400_000)!;
    // Its odds are withdrawn from both the odds file and the observations.
    const odds = (await readOddsFile(store)).filter((o) => o.match_id !== m.id);
    await store.put(KEYS.odds.bucket, KEYS.odds.key, writeParquet(ODDS_COLUMNS, odds as never));
    const observed = await readObservationSet({ db: env.deps.db, store });
    const kept = (observed?.value.all ?? []).filter((o) => o.match_id !== m.id);
    await store.put(
      ODDS_OBSERVATIONS.bucket,
      ODDS_OBSERVATIONS.key,
      writeParquet(
        OBSERVATION_COLUMNS,
        kept.map((o) => ({
          ...o,
          price_1: o.prices[0],
          price_2: o.prices[1],
          price_3: o.prices[2],
        })) as never,
      ),
    );
    const now = new Date(m.startTimeUtc.getTime() - 86_400_000);
    const r = await repredictMatches(env.deps, [m.id], { asOf: now, analytics: {} });
    assert.ok(r.published, r.reason ?? 'published');
    const row = (await served(env)).find((x) => x.match_id === m.id)!;
    assert.equal(row.model_stage, 'fallback');
    assert.equal(row.model_run_id, fallback.run_id);
    assert.equal(row.odds_observed_at, null);
    // The fallback's own probabilities, from the market-free columns of a full build.
    const model = deserializeModel((await fallbackRegistry.loadArtifact(fallback)).toString('utf8'));
    const oddsMap = await readOddsMap(store);
    const f = buildFeatureRows(matches, oddsMap, now, {
      observations: await readOddsTimeline({ db: env.deps.db, store }, oddsMap, matches),
      horizon: { at: now },
    }).find((x) => x.match_id === m.id)!;
    const want = predictProba(model, toModelInput(f, fallback.feature_names));
    assert.ok(Math.abs(row.proba_home - want[0]) < 1e-12 && Math.abs(row.proba_away - want[2]) < 1e-12);
    // Another match's re-prediction inherits the row: the fallback label survives decoding.
    const other = matches.find((x) => x.regionId !== m.regionId && x.startTimeUtc > now)!;
    await repredictMatches(env.deps, [other.id], { asOf: now, analytics: {} });
    assert.equal((await served(env)).find((x) => x.match_id === m.id)!.model_stage, 'fallback');
  });
});
