import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { KEYS, modelArtifactKey } from '../../src/domain/index.js';
import { featureRowsFromParquet } from '../../src/features/index.js';
import { readBacktestRows } from '../../src/pipeline/artifacts.js';
import { type BootstrapResult, FIRST_START_ACTOR } from '../../src/pipeline/bootstrap.js';
import { bootstrapFirstRun, runFeaturesStage, runPredictStage } from '../../src/pipeline/index.js';
import { readParquet } from '../../src/storage/index.js';
import { servedStoreView } from '../helpers/served.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');
const BACKTEST_FROM = new Date('2022-08-01T00:00:00Z');
const league = smallLeague();

async function readRows(env: TestEnv, ref: { bucket: 'predictions' | 'features'; key: string }) {
  const obj = await servedStoreView(env.deps).get(ref.bucket, ref.key);
  assert.ok(obj, `${ref.bucket}/${ref.key} exists`);
  return readParquet(obj.body);
}

describe('pipeline on a small synthetic league', () => {
  let env: TestEnv;
  let first: BootstrapResult;
  before(async () => {
    env = await openTestEnv(league);
    first = await bootstrapFirstRun(env.deps, AS_OF, {
      backtestFrom: BACKTEST_FROM,
      refitDays: 60,
      analytics: {},
    });
  });
  after(async () => {
    await env?.close();
  });

  test('first start: champion signed off, challenger of the other family, history says who', async () => {
    assert.equal(first.ran, true);
    const reg = env.deps.registry;
    const versions = await reg.listVersions();
    assert.equal(versions.length, 2);
    // The better of the two by validation log loss serves; the other stands beside it.
    const better = versions[1].metrics.log_loss! < versions[0].metrics.log_loss! ? '2' : '1';
    const other = better === '1' ? '2' : '1';
    assert.deepEqual(await reg.aliases(), { champion: better, challenger: other });
    assert.equal(versions[0].params.family, 'multinomial_logit');
    assert.equal(versions[1].params.family, 'ordered_logit');
    for (const v of versions) {
      assert.ok(Number.isFinite(v.metrics.log_loss), 'validation log loss');
      assert.ok(Number.isFinite(v.metrics.market_log_loss), 'odds on the same matches');
      assert.ok(v.feature_names.length > 5);
      assert.ok(await env.deps.store.head('models', modelArtifactKey(v.run_id)), 'artifact in the store');
      assert.ok(new Date(v.training_cutoff) <= AS_OF);
    }
    const history = await reg.history();
    // Whether version 1 was a candidate first depends on the promotion guard (it must beat the opening
    // line); either way the first start signs it off and says so.
    assert.deepEqual(
      history
        .filter((e) => e.alias !== 'candidate')
        .map((e) => [e.actor, e.alias, e.from_version, e.to_version]),
      [
        [FIRST_START_ACTOR, 'champion', null, '1'],
        [FIRST_START_ACTOR, 'challenger', null, '2'],
        ...(better === '2'
          ? [
              [FIRST_START_ACTOR, 'champion', '1', '2'],
              [FIRST_START_ACTOR, 'challenger', '2', '1'],
            ]
          : []),
      ],
    );
    assert.deepEqual(first.run?.skipped, ['simulate', 'drift', 'performance']);
    // A second start does nothing.
    const again = await bootstrapFirstRun(env.deps, AS_OF, { analytics: {} });
    assert.equal(again.ran, false);
    assert.equal((await reg.listVersions()).length, 2);
  });

  test('writes the feature, backtest and prediction files with the agreed columns and types', async () => {
    const store = servedStoreView(env.deps);
    for (const ref of [KEYS.features, KEYS.backtest, KEYS.backtestMetrics, KEYS.predictions]) {
      assert.ok(await store.head(ref.bucket, ref.key), `${ref.bucket}/${ref.key}`);
    }
    const metrics = JSON.parse(
      (await store.get(KEYS.backtestMetrics.bucket, KEYS.backtestMetrics.key))!.body.toString(),
    );
    assert.equal(metrics.refit_days, 60);
    assert.ok(metrics.folds.length >= 3);
    for (const f of metrics.folds) assert.match(f.model_run_id, /^[0-9a-f]{32}$/);

    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      const types = async (ref: { bucket: 'predictions' | 'features'; key: string }) => {
        const file = path.join(env.dir, ref.key);
        await writeFile(file, (await store.get(ref.bucket, ref.key))!.body);
        const reader = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
        return Object.fromEntries(
          reader.getRowObjects().map((r) => [String(r.column_name), String(r.column_type)]),
        );
      };
      const p = await types(KEYS.predictions);
      assert.deepEqual(
        [p.match_id, p.home_team_name, p.start_time_utc, p.region_id, p.proba_home, p.predicted_class],
        ['BIGINT', 'VARCHAR', 'TIMESTAMP WITH TIME ZONE', 'INTEGER', 'DOUBLE', 'INTEGER'],
      );
      assert.deepEqual(
        [p.is_future, p.model_stage, p.model_run_id, p.predictions_computed_at, p.home_score, p.away_score],
        ['BOOLEAN', 'VARCHAR', 'VARCHAR', 'TIMESTAMP WITH TIME ZONE', 'INTEGER', 'INTEGER'],
      );
      assert.equal(
        p.odds_observed_at,
        'TIMESTAMP WITH TIME ZONE',
        'odds_observed_at: when the odds used were observed',
      );
      assert.deepEqual(Object.keys(p).sort(), [
        'away_score',
        'away_team_name',
        'home_score',
        'home_team_name',
        'is_future',
        'match_id',
        'model_run_id',
        'model_stage',
        'odds_observed_at',
        'predicted_class',
        'predicted_label',
        'predictions_computed_at',
        'proba_away',
        'proba_draw',
        'proba_home',
        'region_id',
        'region_name',
        'season',
        'start_time_utc',
        'tournament_name',
      ]);
      const b = await types(KEYS.backtest);
      assert.deepEqual(b, {
        match_id: 'BIGINT',
        proba_home: 'DOUBLE',
        proba_draw: 'DOUBLE',
        proba_away: 'DOUBLE',
        model_run_id: 'VARCHAR',
        training_cutoff: 'TIMESTAMP WITH TIME ZONE',
        // The kick-off horizon's walk-forward beside the early one (additive).
        kickoff_proba_home: 'DOUBLE',
        kickoff_proba_draw: 'DOUBLE',
        kickoff_proba_away: 'DOUBLE',
        kickoff_model_run_id: 'VARCHAR',
        kickoff_training_cutoff: 'TIMESTAMP WITH TIME ZONE',
        kickoff_prediction_time: 'TIMESTAMP WITH TIME ZONE',
        kickoff_odds_observed_at: 'TIMESTAMP WITH TIME ZONE',
      });
      const f = await types(KEYS.features);
      assert.equal(f.label, 'INTEGER');
      assert.equal(f.is_future, 'BOOLEAN');
      assert.equal(f.as_of, 'TIMESTAMP WITH TIME ZONE');
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  test('no prediction row comes from a model that trained on its match', async () => {
    const champion = (await env.deps.registry.resolve('champion'))!;
    const cutoff = new Date(champion.training_cutoff).getTime();
    const backtest = new Map((await readBacktestRows(env.deps))!.map((r) => [r.match_id, r]));
    const rows = await readRows(env, KEYS.predictions);
    const byId = new Map(rows.map((r) => [Number(r.match_id), r]));
    let champ = 0;
    let bt = 0;
    for (const r of rows) {
      const start = (r.start_time_utc as Date).getTime();
      if (r.model_stage === 'champion') {
        champ++;
        assert.ok(start >= cutoff, `champion row ${r.match_id} kicked off after the cut-off`);
        assert.equal(r.model_run_id, champion.run_id);
      } else {
        bt++;
        assert.equal(r.model_stage, 'backtest');
        assert.ok(start < cutoff);
        const b = backtest.get(Number(r.match_id))!;
        assert.ok(b, 'backtest row exists');
        assert.equal(r.model_run_id, b.model_run_id, 'the fold run id');
        assert.ok(b.training_cutoff.getTime() <= start, 'the fold trained before the match');
        assert.equal(r.proba_home, b.proba_home);
      }
      const sum = Number(r.proba_home) + Number(r.proba_draw) + Number(r.proba_away);
      assert.ok(Math.abs(sum - 1) < 1e-9);
      assert.ok(r.predictions_computed_at instanceof Date);
      // Results after as-of are ignored even though the DB holds them.
      if (start >= AS_OF.getTime()) {
        assert.equal(r.is_future, true);
        assert.equal(r.home_score, null);
      } else {
        assert.equal(r.is_future, false);
        assert.equal(typeof r.home_score, 'number');
      }
    }
    assert.ok(champ > 0 && bt > 0, `both kinds of rows (${champ} champion, ${bt} backtest)`);
    // Omitted: exactly the matches before the cut-off that no fold predicted.
    for (const id of env.ids) {
      const m = league[env.ids.indexOf(id)].match;
      const before = m.startTimeUtc.getTime() < cutoff;
      assert.equal(byId.has(id), !before || backtest.has(id), `match ${id}`);
    }
    assert.ok(rows.length < env.ids.length, 'the first season has no out-of-sample prediction');
  });

  test('the same as-of reproduces features and predictions (up to timestamps and run ids)', async () => {
    const other = await openTestEnv(league);
    try {
      await bootstrapFirstRun(other.deps, AS_OF, {
        backtestFrom: BACKTEST_FROM,
        refitDays: 60,
        analytics: {},
      });
      const strip = (rows: Record<string, unknown>[]) =>
        rows.map(({ predictions_computed_at, model_run_id, ...rest }) => rest);
      assert.deepEqual(
        strip(await readRows(other, KEYS.predictions)),
        strip(await readRows(env, KEYS.predictions)),
      );
      const fa = (await servedStoreView(env.deps).get(KEYS.features.bucket, KEYS.features.key))!.body;
      const fb = (await servedStoreView(other.deps).get(KEYS.features.bucket, KEYS.features.key))!.body;
      assert.deepEqual(await featureRowsFromParquet(fb), await featureRowsFromParquet(fa));
      // And rebuilding the features in place gives the same file.
      await runFeaturesStage(env.deps, AS_OF);
      assert.ok(fa.equals((await env.deps.store.get(KEYS.features.bucket, KEYS.features.key))!.body));
      // A later as-of changes things: more labels.
      const later = await runFeaturesStage(other.deps, new Date('2023-11-30T00:00:00Z'));
      const earlier = await featureRowsFromParquet(fa);
      assert.ok(later.labelled > earlier.filter((r) => r.label !== null).length);
    } finally {
      await other.close();
    }
  });

  test('predict recomputes only the timestamp when nothing changed', async () => {
    const a = await runPredictStage(env.deps, AS_OF, { now: new Date('2030-01-01T00:00:00Z') });
    const b = await runPredictStage(env.deps, AS_OF, { now: new Date('2030-01-02T00:00:00Z') });
    const strip = (rows: typeof a.predictionRows) => rows.map(({ predictions_computed_at, ...rest }) => rest);
    assert.deepEqual(strip(b.predictionRows), strip(a.predictionRows));
    assert.equal(b.predictionRows[0].predictions_computed_at.toISOString(), '2030-01-02T00:00:00.000Z');
  });
});
