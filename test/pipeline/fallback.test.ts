import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS } from '../../src/domain/index.js';
import {
  featureRowsFromParquet,
  MARKET_FREE_FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
  toModelInput,
} from '../../src/features/index.js';
import { deserializeModel, predictProba } from '../../src/model/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { fallbackModelName } from '../../src/pipeline/stage-fallback.js';
import { ModelRegistry } from '../../src/registry/index.js';
import { readParquet, writeParquet } from '../../src/storage/index.js';
import { servedStoreView } from '../helpers/served.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');
const BACKTEST_FROM = new Date('2022-08-01T00:00:00Z');

describe('market-free fallback', () => {
  let env: TestEnv;
  const hidden = new Set<number>();
  before(async () => {
    env = await openTestEnv(smallLeague());
    // Hide the odds of every 5th match: past ones (walked forward) and future ones (scored live).
    const obj = await env.deps.store.get(KEYS.odds.bucket, KEYS.odds.key);
    const rows = await readParquet(obj!.body);
    for (const id of env.ids) if (id % 5 === 0) hidden.add(id);
    const kept = rows.filter((r) => !hidden.has(Number(r.match_id)));
    await env.deps.store.put(
      KEYS.odds.bucket,
      KEYS.odds.key,
      writeParquet(
        [
          { name: 'match_id', type: 'int64' },
          ...['odd', 'open', 'close'].flatMap((p) =>
            ['home', 'draw', 'away'].map((s) => ({ name: `${p}_${s}`, type: 'double' as const })),
          ),
          { name: 'source', type: 'string' },
        ],
        kept,
      ),
    );
    await bootstrapFirstRun(env.deps, AS_OF, { backtestFrom: BACKTEST_FROM, refitDays: 60, analytics: {} });
  });
  after(async () => {
    await env?.close();
  });

  test('its inputs hold nothing derived from the match’s own odds', () => {
    assert.ok(MARKET_FREE_FEATURE_NAMES.length > 10);
    for (const n of MARKET_FREE_FEATURE_NAMES) {
      assert.ok(
        !n.startsWith('mkt_') && !n.startsWith('odds_') && !n.startsWith('gm_') && n !== 'mr_sup_gap',
        n,
      );
      assert.ok(MODEL_FEATURE_NAMES.includes(n));
    }
    assert.ok(MARKET_FREE_FEATURE_NAMES.includes('mr_sup'), 'market ratings of earlier matches stay');
  });

  test('matches without odds are scored by the fallback and labelled; the others by the champion', async () => {
    const reg = new ModelRegistry(env.deps, fallbackModelName(env.config.modelName));
    const fallback = await reg.resolve('champion');
    assert.ok(fallback, 'a fallback version is registered with its alias');
    const champion = await env.deps.registry.resolve('champion');
    assert.equal(fallback.feature_fingerprint, champion?.feature_fingerprint, 'same features definition');
    assert.deepEqual([...fallback.feature_names], [...MARKET_FREE_FEATURE_NAMES]);

    const store = servedStoreView(env.deps);
    const preds = await readParquet((await store.get(KEYS.predictions.bucket, KEYS.predictions.key))!.body);
    const features = await featureRowsFromParquet(
      (await store.get(KEYS.features.bucket, KEYS.features.key))!.body,
    );
    const byId = new Map(features.map((f) => [f.match_id, f]));
    const model = deserializeModel((await reg.loadArtifact(fallback)).toString('utf8'));
    let futureHidden = 0;
    let pastHidden = 0;
    for (const p of preds) {
      const id = Number(p.match_id);
      const future = new Date(String(p.start_time_utc)) >= new Date(fallback.training_cutoff);
      if (hidden.has(id) && future) {
        futureHidden++;
        assert.equal(p.model_stage, 'fallback', `match ${id}`);
        assert.equal(p.model_run_id, fallback.run_id);
        const q = predictProba(model, toModelInput(byId.get(id)!, fallback.feature_names));
        assert.deepEqual([p.proba_home, p.proba_draw, p.proba_away], q);
      } else if (hidden.has(id)) {
        pastHidden++;
        assert.equal(p.model_stage, 'backtest');
        const run = await reg.getRun(String(p.model_run_id));
        assert.ok(run, `match ${id}: its walk-forward fold is a run the fallback's registry knows`);
        assert.ok(new Date(run.training_cutoff) <= new Date(String(p.start_time_utc)), 'out of sample');
      } else {
        assert.notEqual(p.model_stage, 'fallback', `match ${id} has odds`);
      }
    }
    assert.ok(futureHidden > 3, `future matches without odds: ${futureHidden}`);
    assert.ok(pastHidden > 3, `past matches without odds: ${pastHidden}`);
  });

  test('its probability for a match does not move when that match’s own odds appear', async () => {
    const reg = new ModelRegistry(env.deps, fallbackModelName(env.config.modelName));
    const fallback = (await reg.resolve('champion'))!;
    const model = deserializeModel((await reg.loadArtifact(fallback)).toString('utf8'));
    const store = servedStoreView(env.deps);
    const features = await featureRowsFromParquet(
      (await store.get(KEYS.features.bucket, KEYS.features.key))!.body,
    );
    const row = features.find((f) => f.is_future && hidden.has(f.match_id))!;
    const withOdds = { ...row, mkt_home: 0.5, mkt_draw: 0.3, mkt_away: 0.2, mkt_missing: 0, mr_sup_gap: 0.4 };
    assert.deepEqual(
      predictProba(model, toModelInput(withOdds, fallback.feature_names)),
      predictProba(model, toModelInput(row, fallback.feature_names)),
    );
  });
});
