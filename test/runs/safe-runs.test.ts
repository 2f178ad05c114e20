// Safe runs in embedded mode (folder store, PGlite rows): runs publish their whole set at once
// behind gates, a failed or gated run changes nothing served (byte for byte), rollback, retention,
// fingerprints, out-of-sample live answers and the cache key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { predictionCacheKey } from '../../src/cache/index.js';
import { registryCommand } from '../../src/cli/registry.js';
import { runsCommand } from '../../src/cli/runs.js';
import { openDatabase } from '../../src/db/index.js';
import { isMatchcastError, KEYS } from '../../src/domain/index.js';
import { featureFingerprint } from '../../src/features/index.js';
import { createLogger } from '../../src/logger.js';
import { bootstrapFirstRun, evaluateGates, runFeaturesStage, runPipeline } from '../../src/pipeline/index.js';
import {
  listRuns,
  openDraftRun,
  pruneRuns,
  RunWriter,
  readArtifact,
  readPublished,
  readRunHistory,
  readRunRecord,
  rollbackRun,
} from '../../src/runs/index.js';
import { publishedRunAt } from '../../src/runs/records.js';
import { createServingViews, type Views } from '../../src/serving/index.js';
import { readParquet, writeParquet } from '../../src/storage/index.js';
import { createDefaultWorkerDeps, createWorkerRuntime } from '../../src/worker/index.js';
import { openTestEnv, smallLeague, type TestEnv } from '../pipeline/fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');
const log = createLogger('silent');

/** Every byte the precomputed routes serve. */
function served(views: Views) {
  return {
    predictions: views.predictionsBody().gzip.toString('base64'),
    cards: views.cardsBody().gzip.toString('base64'),
    odds: views.oddsBody().gzip.toString('base64'),
    run: views.servedRun()?.run_id ?? null,
  };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return isMatchcastError(err) ? err.code : `not coded: ${String(err)}`;
  }
  return 'resolved';
}

describe('safe runs (embedded)', () => {
  let env: TestEnv;
  let views: Views;
  let firstRun: string;

  before(async () => {
    env = await openTestEnv(smallLeague(), { RUNS_KEEP: '50' });
    const boot = await bootstrapFirstRun(env.deps, AS_OF, { analytics: {}, refitDays: 120 });
    assert.ok(boot.run?.predict, 'the first start predicts with its champion');
    firstRun = boot.run!.run_id;
    views = createServingViews(env.deps, env.config, log);
    await views.start();
  });
  after(async () => {
    await views?.close();
    await env?.close();
  });

  test('a pipeline run writes only under runs/<id>/ and one pointer names the whole set', async () => {
    const published = await readPublished(env.deps.db);
    assert.equal(published?.run_id, firstRun);
    for (const name of ['features', 'predictions', 'odds', 'backtest', 'backtestMetrics'] as const) {
      const ref = published!.artifacts[name];
      assert.ok(ref, `${name} in the published run`);
      assert.ok(ref.key.startsWith(`runs/${firstRun}/`), `${name} under the run prefix: ${ref.key}`);
    }
    // Nothing at the served legacy keys: the pointer is the only way in.
    assert.equal(await env.deps.store.head(KEYS.predictions.bucket, KEYS.predictions.key), null);
    assert.equal(await env.deps.store.head(KEYS.features.bucket, KEYS.features.key), null);
    assert.equal(views.servedRun()?.run_id, firstRun);
    assert.equal(published!.features_fingerprint, featureFingerprint());
    const record = await readRunRecord(env.deps.db, firstRun);
    assert.equal(record?.status, 'complete');
    assert.deepEqual(
      record!.gates.map((g) => [g.name, g.passed]),
      ['rows', 'results_kept', 'probabilities', 'odds_plausible', 'feature_columns'].map((n) => [n, true]),
    );
    assert.equal(record!.published_at.length, 1);
    // Monitoring can tell which run was served at an instant.
    assert.equal(await publishedRunAt(env.deps.db, new Date(record!.published_at[0]!)), firstRun);
    assert.equal(await publishedRunAt(env.deps.db, new Date(0)), null);
  });

  test('a run that fails mid-way is marked failed and serves nothing new (bytes identical)', async () => {
    const before = served(views);
    const failing = runPipeline(env.deps, AS_OF, {
      analytics: {
        simulate: async () => {
          throw new Error('disk full in simulate');
        },
      },
    });
    await assert.rejects(failing, /disk full/);
    await views.refresh();
    assert.deepEqual(served(views), before);
    assert.equal((await readPublished(env.deps.db))?.run_id, firstRun);
    const failed = (await listRuns(env.deps.db)).at(-1)!;
    assert.equal(failed.status, 'failed');
    assert.match(failed.error?.message ?? '', /disk full/);
    assert.ok(failed.stages.features && failed.stages.predict, 'it got as far as predict');
  });

  test('gates: implausible odds refuse the run (exit 3 path), --force publishes and is recorded', async () => {
    const before = served(views);
    const input = await env.deps.store.get(KEYS.odds.bucket, KEYS.odds.key);
    const rows = await readParquet(input!.body);
    rows[0]!.odd_home = 1e308;
    const cols = Object.keys(rows[0]!).map((name) => ({
      name,
      type:
        name === 'match_id'
          ? ('int64' as const)
          : name === 'source'
            ? ('string' as const)
            : ('double' as const),
    }));
    await env.deps.store.put(KEYS.odds.bucket, KEYS.odds.key, writeParquet(cols, rows));
    try {
      assert.equal(await codeOf(runPipeline(env.deps, AS_OF, { analytics: {} })), 'MC_ERR_GATE_FAILED');
      await views.refresh();
      assert.deepEqual(served(views), before, 'a gated run changes no served byte');
      const rejected = (await listRuns(env.deps.db)).at(-1)!;
      assert.equal(rejected.status, 'rejected');
      const gate = rejected.gates.find((g) => g.name === 'odds_plausible')!;
      assert.equal(gate.passed, false);
      assert.equal(gate.figures.implausible, 1);

      const forced = await runPipeline(env.deps, AS_OF, { analytics: {}, force: true });
      assert.equal(forced.published.forced, true);
      assert.equal((await readRunRecord(env.deps.db, forced.run_id))?.forced, true);
      const history = await readRunHistory(env.deps.db);
      assert.equal(history.at(-1)?.forced, true);
      assert.match(history.at(-1)?.reason ?? '', /odds_plausible/);
      await views.refresh();
      assert.equal(views.servedRun()?.run_id, forced.run_id);
    } finally {
      await env.deps.store.put(KEYS.odds.bucket, KEYS.odds.key, input!.body);
    }
    // Rollback: one guarded move of the pointer back to the first run, same history; the served bytes are the first run's.
    const back = await runsCommand(['rollback', firstRun, '--reason', 'bad odds'], {
      config: env.config,
      db: env.deps.db,
      store: env.deps.store,
      out: () => {},
      err: () => {},
    });
    assert.equal(back, 0);
    await views.refresh();
    assert.deepEqual(served(views), before, 'rollback serves the earlier run byte for byte');
    const last = (await readRunHistory(env.deps.db)).at(-1)!;
    assert.equal(last.action, 'rollback');
    assert.equal(last.to_run, firstRun);
  });

  test('an empty database is refused by the rows gate; a lost result by results_kept', async () => {
    const before = served(views);
    const emptyDb = await openDatabase(env.config, { memory: true });
    try {
      const draft = await openDraftRun(env.deps, { asOf: AS_OF });
      await runFeaturesStage({ ...env.deps, db: emptyDb, store: draft.store, run: draft }, AS_OF);
      const gates = await evaluateGates(draft, await readPublished(env.deps.db));
      const rows = gates.find((g) => g.name === 'rows')!;
      assert.equal(rows.passed, false);
      assert.match(rows.message, /no rows/);
      assert.equal(await codeOf(draft.publish({ gates })), 'MC_ERR_GATE_FAILED');
      await views.refresh();
      assert.deepEqual(served(views), before);
    } finally {
      await emptyDb.close();
    }
    // A finished match that lost its result in the database (a later file without a score).
    const all = await (await import('../../src/db/index.js')).MatchesRepository.prototype.allMatches.call(
      new (await import('../../src/db/index.js')).MatchesRepository(env.deps.db),
    );
    const victim = all.find((m) => m.status === 'finished' && m.startTimeUtc < AS_OF)!;
    await env.deps.db.query(
      'UPDATE matches SET status = $1, home_score = NULL, away_score = NULL WHERE id = $2',
      ['scheduled', victim.id],
    );
    const draft = await openDraftRun(env.deps, { asOf: AS_OF });
    await runFeaturesStage({ ...env.deps, store: draft.store, run: draft }, AS_OF);
    const gates = await evaluateGates(draft, await readPublished(env.deps.db));
    const kept = gates.find((g) => g.name === 'results_kept')!;
    assert.equal(kept.passed, false, kept.message);
    assert.equal(kept.figures.lost, 1);
    assert.match(String(kept.figures.examples), new RegExp(String(victim.id)));
    await draft.saveDraft();
    await env.deps.db.query(
      'UPDATE matches SET status = $1, home_score = $2, away_score = $3 WHERE id = $4',
      ['finished', victim.homeScore, victim.awayScore, victim.id],
    );
  });

  test('odds_plausible checks the goals-market prices too, not only 1X2', async () => {
    const draft = await openDraftRun(env.deps, { asOf: AS_OF });
    await runFeaturesStage({ ...env.deps, store: draft.store, run: draft }, AS_OF);
    const base = {
      match_id: 1,
      odd_home: 2.1,
      odd_draw: 3.4,
      odd_away: 3.6,
      open_home: 2.2,
      open_draw: 3.3,
      open_away: 3.5,
      close_home: null,
      close_draw: null,
      close_away: null,
      source: 'test',
      open_over25: 1.9,
      open_under25: 1.95,
      close_btts_yes: 1.8,
    };
    const published = await readPublished(env.deps.db);
    const ok = await evaluateGates(draft, published, { odds: [base] });
    const passed = ok.find((g) => g.name === 'odds_plausible')!;
    assert.equal(passed.passed, true, passed.message);
    assert.equal(passed.figures.checked, 9, '6 1X2 prices and 3 goals prices');
    for (const field of ['open_under25', 'close_btts_yes', 'odd_btts_no'] as const) {
      const gates = await evaluateGates(draft, published, { odds: [{ ...base, [field]: 0.5 }] });
      const gate = gates.find((g) => g.name === 'odds_plausible')!;
      assert.equal(gate.passed, false, field);
      assert.equal(gate.figures.implausible, 1, field);
      assert.match(gate.message, new RegExp(field));
    }
    await draft.saveDraft();
  });

  test('a run whose as-of is before published results is refused by results_kept (it would serve them as fixtures)', async () => {
    const before = served(views);
    const earlier = new Date('2023-08-20T00:00:00Z');
    const run = await RunWriter.begin(env.deps, { asOf: earlier, kind: 'stage', status: 'draft', log });
    try {
      await runFeaturesStage({ ...env.deps, store: run.store, run }, earlier);
      const gates = await evaluateGates(run, await readPublished(env.deps.db));
      const kept = gates.find((g) => g.name === 'results_kept')!;
      assert.equal(kept.passed, false, kept.message);
      assert.ok(Number(kept.figures.after_as_of) > 0, JSON.stringify(kept.figures));
      assert.equal(kept.figures.lost, kept.figures.after_as_of);
      assert.match(
        kept.message,
        /as-of 2023-08-20T00:00:00\.000Z is before the kick-off of \d+ finished match/,
      );
      assert.equal(await codeOf(run.publish({ gates })), 'MC_ERR_GATE_FAILED');
      await views.refresh();
      assert.deepEqual(served(views), before);
    } finally {
      await run.fail(new Error('test: discarded')).catch(() => undefined);
    }
  });

  test('workers: out-of-sample answers before the cut-off, coded errors, fingerprint pinning', async () => {
    const deps = await createDefaultWorkerDeps(env.config, log, env.deps);
    const runtime = createWorkerRuntime(deps);
    const champion = (await env.deps.registry.resolve('champion'))!;
    assert.equal(champion.feature_fingerprint, featureFingerprint());
    assert.ok(champion.features_artifact?.run_id, 'the version names the features run it trained on');
    const predictions = (await readParquet((await readArtifact(env.deps, 'predictions'))!.body)) as Array<
      Record<string, unknown>
    >;
    const past = predictions.find((r) => r.model_stage === 'backtest')!;
    const future = predictions.find((r) => r.model_stage === 'champion')!;
    const oos = await runtime.predictMatch({ match_id: Number(past.match_id), stage: 'champion' });
    assert.equal(oos.prediction_source, 'walk_forward_backtest');
    assert.equal(oos.model_stage, 'champion');
    assert.equal(oos.model_run_id, past.model_run_id, 'the same row the precomputed route serves');
    assert.equal(oos.probabilities.home_win, past.proba_home);
    const fold = await env.deps.registry.getRun(oos.model_run_id);
    assert.equal(fold?.kind, 'backtest-fold', 'the registry knows the fold');
    assert.equal(fold?.recipe_version, champion.version, "the fold refit the champion's recipe");
    const live = await runtime.predictMatch({ match_id: Number(future.match_id), stage: 'champion' });
    assert.equal(live.prediction_source, 'model');
    assert.equal(live.model_run_id, champion.run_id);
    assert.equal(
      await codeOf(runtime.predictMatch({ match_id: Number(past.match_id), stage: 'challenger' })),
      'MC_ERR_NOT_OUT_OF_SAMPLE',
    );

    // A version trained on another feature definition: refused by the CLI, 503 on the worker if forced.
    const other = await env.deps.registry.registerVersion({
      metrics: { log_loss: 1 },
      params: {},
      feature_names: champion.feature_names,
      training_cutoff: champion.training_cutoff,
      artifact: await env.deps.registry.loadArtifact(champion),
      feature_fingerprint: 'sha256:0000000000000000',
    });
    const io = { config: env.config, db: env.deps.db, store: env.deps.store, out: () => {}, err: () => {} };
    assert.equal(await registryCommand(['alias', 'set', 'challenger', other.version], io), 1);
    assert.notEqual((await env.deps.registry.aliases()).challenger, other.version);
    assert.equal(await registryCommand(['alias', 'set', 'challenger', other.version, '--force'], io), 0);
    const fresh = createWorkerRuntime(deps);
    assert.equal(
      await codeOf(fresh.predictMatch({ match_id: Number(future.match_id), stage: 'challenger' })),
      'MC_ERR_FEATURES_MISMATCH',
    );
  });

  test('the live cache key keeps the seed prefix and separates stage and features snapshot', () => {
    const champion = predictionCacheKey(7, 'abc', { stage: 'champion', featuresRunId: 'r1' });
    assert.ok(champion.startsWith('predict:7:abc'));
    assert.notEqual(champion, predictionCacheKey(7, 'abc', { stage: 'challenger', featuresRunId: 'r1' }));
    assert.notEqual(champion, predictionCacheKey(7, 'abc', { stage: 'champion', featuresRunId: 'r2' }));
  });

  test('retention keeps RUNS_KEEP runs, the published one and what it references', async () => {
    const { db, store } = env.deps;
    const before = (await listRuns(db)).length;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await RunWriter.begin(env.deps, { kind: 'incremental' });
      await run.put('roiSummary', `{"i":${i}}`);
      await run.publish({ gates: [], requireParentCurrent: false });
      ids.push(run.runId);
    }
    const published = (await readPublished(db))!;
    // The last run inherits the features of the first run: they must survive retention.
    const featuresOwner = published.artifacts.features!.run_id;
    const removed = await pruneRuns(env.deps, 2);
    const left = (await listRuns(db)).map((r) => r.run_id);
    assert.ok(left.includes(published.run_id));
    assert.ok(left.includes(featuresOwner), 'a run whose artifacts the published run references stays');
    assert.ok(removed.length >= before - 2, `removed ${removed.length} of ${before + 3}`);
    assert.ok(await store.head(published.artifacts.features!.bucket, published.artifacts.features!.key));
    for (const id of removed) assert.equal(await readRunRecord(db, id), null);
    assert.equal(await codeOf(rollbackRun(env.deps, 'nope', { actor: 't' })), 'MC_ERR_NOT_FOUND');
  });
});
