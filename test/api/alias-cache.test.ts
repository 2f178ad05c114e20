import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { AliasCache } from '../../src/api/routes/live.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { breakableDb, unreachableDb } from '../helpers/db-faults.js';

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

test('registry unreachable at start: resolve defers to the workers (version null); stage rules still apply', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-alias-cache-'));
  dirs.push(dir);
  const config = parseConfig({ DATA_DIR: dir });
  const store = createObjectStore(config);
  const db = await unreachableDb();
  try {
    const aliases = new AliasCache(createRegistry({ db, store }, config), 60_000);
    assert.deepEqual(await aliases.resolve(undefined), { stage: 'champion', version: null });
    assert.deepEqual(await aliases.resolve('challenger'), { stage: 'challenger', version: null });
    await assert.rejects(aliases.resolve('staging'), { code: 'MC_ERR_BAD_STAGE' });
  } finally {
    await db.close();
    await store.close();
  }
});

test('registry lost after a first answer: the last known aliases and versions keep resolving', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-alias-cache-'));
  dirs.push(dir);
  const config = parseConfig({ DATA_DIR: dir });
  const store = createObjectStore(config);
  const db = breakableDb(await openDatabase(config, { memory: true }));
  t.after(() => Promise.all([db.close(), store.close()]));
  const registry = createRegistry({ db, store }, { modelName: `alias-cache-${process.pid}` });
  const v1 = await registry.registerVersion({
    metrics: { log_loss: 0.99 },
    params: { family: 'multinomial_logit' },
    feature_names: ['elo_diff'],
    training_cutoff: '2023-07-01T00:00:00Z',
    artifact: '{}',
  });
  await registry.setAlias('champion', v1.version, 'test');
  const aliases = new AliasCache(registry, 0); // refreshMs 0: every call asks the registry again
  assert.equal((await aliases.resolve('champion')).version?.run_id, v1.run_id);
  await assert.rejects(aliases.resolve('challenger'), { code: 'MC_ERR_BAD_STAGE' }, 'no such alias');

  db.down = true;
  assert.equal((await aliases.resolve('champion')).version?.run_id, v1.run_id, 'last known answer');
  await assert.rejects(aliases.resolve('challenger'), { code: 'MC_ERR_BAD_STAGE' });

  db.down = false;
  await registry.deleteAlias('champion', 'test');
  await assert.rejects(aliases.resolve('champion'), { code: 'MC_ERR_BAD_STAGE' }, 'a removed alias is seen');
});
