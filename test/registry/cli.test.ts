import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { registryCommand } from '../../src/cli/registry.js';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createRegistry, type ModelRegistry } from '../../src/registry/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';

let dir: string;
let config: Config;
let store: ObjectStore;
let db: Database;
let reg: ModelRegistry;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mc-registry-cli-'));
  config = parseConfig({ DATA_DIR: dir, MODEL_NAME: 'cli-test' });
  store = createObjectStore(config);
  db = await openDatabase(config, { memory: true });
  reg = createRegistry({ db, store }, config);
  for (const ll of [0.99, 0.98]) {
    await reg.registerVersion({
      metrics: { log_loss: ll, market_log_loss: 0.97, rps: 0.2 },
      params: { family: 'multinomial_logit' },
      feature_names: ['a', 'b'],
      training_cutoff: '2023-07-01T00:00:00Z',
      artifact: '{}',
    });
  }
});
after(async () => {
  await db.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await registryCommand(argv, {
    config,
    db,
    store,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

test('list and show, as a table and as JSON', async () => {
  const table = await run('list');
  assert.equal(table.code, 0);
  assert.match(table.out, /^version\s+aliases\s+created_at/);
  assert.match(table.out, /\n1\s+\S+/);
  const json = JSON.parse((await run('list', '--json')).out);
  assert.deepEqual(
    json.versions.map((v: { version: string }) => v.version),
    ['1', '2'],
  );
  const show = JSON.parse((await run('show', '2', '--json')).out);
  assert.equal(show.metrics.log_loss, 0.98);
  assert.deepEqual(show.aliases, []);
  assert.match((await run('show', '2')).out, /run_id\s+[0-9a-f]{32}/);
  assert.equal((await run('show', '9')).code, 1);
});

test('alias set / rm, promote with rollback hint, history with the actor', async () => {
  assert.equal((await run('alias', 'set', 'champion', '1', '--actor', 'alice', '--reason', 'first')).code, 0);
  assert.equal((await run('alias', 'set', 'candidate', '2', '--actor', 'pipeline')).code, 0);
  const promoted = await run('promote', '--actor', 'bob');
  assert.equal(promoted.code, 0);
  assert.match(promoted.out, /champion: 1 → 2/);
  assert.match(promoted.out, /rollback: matchcast registry alias set champion 1/);
  assert.deepEqual(await reg.aliases(), { champion: '2' });
  assert.equal((await run('promote')).code, 1, 'no candidate left');
  const rollback = JSON.parse((await run('alias', 'set', 'champion', '1', '--actor', 'bob', '--json')).out);
  assert.equal(rollback.event.from_version, '2');
  assert.equal((await run('alias', 'set', 'challenger', '2', '--actor', 'carol')).code, 0);
  assert.match((await run('alias', 'rm', 'challenger', '--actor', 'carol')).out, /challenger: 2 → -/);
  const history = JSON.parse((await run('history', '--json')).out);
  assert.deepEqual(
    history.map((e: { actor: string; alias: string }) => `${e.actor}:${e.alias}`),
    [
      'alice:champion',
      'pipeline:candidate',
      'bob:champion',
      'bob:candidate',
      'bob:champion',
      'carol:challenger',
      'carol:challenger',
    ],
  );
  assert.match((await run('history')).out, /alice\s+champion\s+-\s+1\s+first/);
});

test('usage errors exit 2', async () => {
  assert.equal((await run()).code, 2);
  assert.equal((await run('frobnicate')).code, 2);
  assert.equal((await run('alias', 'set', 'staging', '1')).code, 2);
  assert.equal((await run('alias', 'move', 'champion')).code, 2);
  assert.equal((await run('list', '--bogus')).code, 2);
  assert.equal((await run('--help')).code, 0);
});
