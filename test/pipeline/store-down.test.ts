import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS, MatchcastError } from '../../src/domain/index.js';
import {
  bootstrapFirstRun,
  runFeaturesStage,
  runPredictStage,
  runTrainStage,
} from '../../src/pipeline/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { unreachableS3Config } from '../helpers/s3rver.js';
import { servedStoreView } from '../helpers/served.js';
import { openTestEnv, smallLeague, type TestEnv } from './fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

/**
 * The folder store with a switch that makes every write fail as an unreachable store does. (The
 * unreachable S3 endpoint below is the real thing; this one lets the test look at what stayed.)
 */
function breakableStore(inner: ObjectStore): ObjectStore & { down: boolean } {
  const wrapper = Object.create(inner) as ObjectStore & { down: boolean };
  wrapper.down = false;
  wrapper.put = async (...args) => {
    if (wrapper.down) throw new MatchcastError('MC_ERR_STORE_UNAVAILABLE', 'object store is down (test)');
    return inner.put(...args);
  };
  return wrapper;
}

describe('object store down', () => {
  let env: TestEnv;
  let store: ObjectStore & { down: boolean };
  before(async () => {
    env = await openTestEnv(smallLeague({ teams: 6, seed: 3 }), {}, (inner) => {
      store = breakableStore(inner);
      return store;
    });
    await bootstrapFirstRun(env.deps, AS_OF, { analytics: {}, refitDays: 120 });
  });
  after(async () => {
    await env?.close();
  });

  test('an unreachable S3 endpoint fails the stage with MC_ERR_STORE_UNAVAILABLE, quickly', async () => {
    const config = unreachableS3Config();
    const s3 = createObjectStore(config);
    const started = Date.now();
    try {
      const deps = {
        ...env.deps,
        store: s3,
        registry: createRegistry({ db: env.deps.db, store: s3 }, config),
      };
      await assert.rejects(runFeaturesStage(deps, AS_OF), { code: 'MC_ERR_STORE_UNAVAILABLE' });
      await assert.rejects(runPredictStage(deps, AS_OF), { code: 'MC_ERR_STORE_UNAVAILABLE' });
    } finally {
      await s3.close();
    }
    assert.ok(Date.now() - started < 30_000, 'bounded');
  });

  test('a failed write leaves the previous artifacts and the registry as they were', async () => {
    const before = await Promise.all(
      [KEYS.features, KEYS.predictions, KEYS.backtest].map((r) =>
        servedStoreView(env.deps).head(r.bucket, r.key),
      ),
    );
    const versions = (await env.deps.registry.listVersions()).length;
    store.down = true;
    try {
      await assert.rejects(runFeaturesStage(env.deps, new Date('2023-11-01T00:00:00Z')), {
        code: 'MC_ERR_STORE_UNAVAILABLE',
      });
      // Another window than the bootstrap's, so a new version must be written (not one reused).
      await assert.rejects(runTrainStage(env.deps, AS_OF, { validationDays: 200 }), {
        code: 'MC_ERR_STORE_UNAVAILABLE',
      });
      await assert.rejects(runPredictStage(env.deps, AS_OF), { code: 'MC_ERR_STORE_UNAVAILABLE' });
    } finally {
      store.down = false;
    }
    const afterwards = await Promise.all(
      [KEYS.features, KEYS.predictions, KEYS.backtest].map((r) =>
        servedStoreView(env.deps).head(r.bucket, r.key),
      ),
    );
    assert.deepEqual(
      afterwards.map((i) => i?.etag),
      before.map((i) => i?.etag),
    );
    assert.equal((await env.deps.registry.listVersions()).length, versions, 'no half-registered version');
    // Still servable: the old predictions read back whole.
    const rows = await runPredictStage(env.deps, AS_OF);
    assert.ok(rows.rows > 0);
  });
});
