import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { createRegistry, type ModelRegistry, type NewVersion } from '../../src/registry/index.js';
import { aliasesKey, historyKey, REGISTRY_BUCKET } from '../../src/registry/keys.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { startS3rver, type TestS3Server } from '../helpers/s3rver.js';

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-registry-'));
  dirs.push(dir);
  return dir;
}

async function folderStore(dir?: string): Promise<ObjectStore> {
  return createObjectStore(parseConfig({ DATA_DIR: dir ?? (await tempDir()) }));
}

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'alias-writer.fixture.ts'), ...args],
      { stdio: ['ignore', 'inherit', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`alias writer exited ${code}: ${stderr}`));
    });
  });
}

let modelSeq = 0;
function registry(store: ObjectStore): ModelRegistry {
  modelSeq += 1;
  return createRegistry(store, { modelName: `test-model-${process.pid}-${modelSeq}` });
}

function newVersion(logLoss: number, extra: Partial<NewVersion> = {}): NewVersion {
  return {
    metrics: { log_loss: logLoss, rps: 0.2, market_log_loss: 0.98 },
    params: { family: 'logreg', l2: 0.01, refit: true },
    feature_names: ['elo_diff', 'market_p_home'],
    training_cutoff: new Date('2023-07-01T00:00:00Z'),
    artifact: JSON.stringify({ kind: 'test', logLoss }),
    ...extra,
  };
}

/** Store-generic registry tests; `moves` = alias moves per concurrent writer (S3 emulation is slower). */
function registrySuite(makeStore: () => Promise<ObjectStore>, moves = 8): void {
  test('registers numbered versions with artifacts and spec 2.7 fields', async () => {
    const store = await makeStore();
    const reg = registry(store);
    assert.deepEqual(await reg.listVersions(), []);
    assert.equal(await reg.latestVersion(), null);
    const v1 = await reg.registerVersion(newVersion(0.99));
    const v2 = await reg.registerVersion(newVersion(0.98));
    assert.equal(v1.version, '1');
    assert.equal(v2.version, '2');
    assert.match(v1.run_id, /^[0-9a-f]{32}$/);
    assert.notEqual(v1.run_id, v2.run_id);
    assert.match(v1.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/, 'ISO 8601 without zone');
    assert.deepEqual(v1.params, { family: 'logreg', l2: '0.01', refit: 'true' });
    assert.equal(v1.training_cutoff, '2023-07-01T00:00:00.000Z');
    assert.equal(v1.artifact_uri, `models/${v1.run_id}/model.json`);
    assert.deepEqual(await reg.getVersion('2'), v2);
    assert.equal(await reg.getVersion('3'), null);
    assert.equal(await reg.getVersion('../x'), null);
    assert.deepEqual(
      (await reg.listVersions()).map((v) => v.version),
      ['1', '2'],
    );
    assert.equal((await reg.latestVersion())?.version, '2');
    const art = await reg.loadArtifact('1');
    assert.deepEqual(JSON.parse(art.toString('utf8')), { kind: 'test', logLoss: 0.99 });
    assert.ok(await store.head(REGISTRY_BUCKET, `${v2.run_id}/model.json`));
    await assert.rejects(reg.loadArtifact('9'), { code: 'MC_ERR_NOT_FOUND' });
  });

  test('a run id is never registered twice and a bad run id is refused', async () => {
    const reg = registry(await makeStore());
    const v = await reg.registerVersion(newVersion(0.99));
    await assert.rejects(reg.registerVersion(newVersion(0.9, { run_id: v.run_id })), {
      code: 'MC_ERR_CONFLICT',
    });
    await assert.rejects(reg.registerVersion(newVersion(0.9, { run_id: 'nope' })), {
      code: 'MC_ERR_VALIDATION',
    });
  });

  test('concurrent registrations get distinct consecutive numbers', async () => {
    const reg = registry(await makeStore());
    const versions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => reg.registerVersion(newVersion(1 + i))),
    );
    assert.deepEqual(
      versions.map((v) => Number(v.version)).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6],
    );
    const listed = await reg.listVersions();
    assert.deepEqual(
      listed.map((v) => v.version),
      ['1', '2', '3', '4', '5', '6'],
    );
    assert.equal(new Set(listed.map((v) => v.run_id)).size, 6);
  });

  test('alias moves: set, move, resolve, delete, validation', async () => {
    const reg = registry(await makeStore());
    await reg.registerVersion(newVersion(0.99));
    await reg.registerVersion(newVersion(0.98));
    assert.deepEqual(await reg.aliases(), {});
    assert.equal(await reg.resolve('champion'), null);
    const e1 = await reg.setAlias('champion', '1', 'alice', 'first');
    assert.equal(e1?.from_version, null);
    assert.equal(e1?.to_version, '1');
    assert.equal((await reg.resolve('champion'))?.version, '1');
    assert.equal(await reg.setAlias('champion', '1', 'alice'), null, 'no event when nothing changes');
    await reg.setAlias('challenger', '2', 'bob');
    const e3 = await reg.setAlias('champion', '2', 'carol', 'better');
    assert.equal(e3?.from_version, '1');
    assert.deepEqual(await reg.aliases(), { champion: '2', challenger: '2' });
    const del = await reg.deleteAlias('challenger', 'dave');
    assert.equal(del?.to_version, null);
    assert.equal(await reg.deleteAlias('challenger', 'dave'), null);
    assert.deepEqual(await reg.aliases(), { champion: '2' });
    await assert.rejects(reg.setAlias('champion', '7', 'x'), { code: 'MC_ERR_NOT_FOUND' });
    await assert.rejects(reg.setAlias('staging' as 'champion', '1', 'x'), { code: 'MC_ERR_VALIDATION' });
    const doc = await reg.loadArtifact((await reg.resolve('champion'))!);
    assert.equal(JSON.parse(doc.toString()).logLoss, 0.98);
  });

  test('history is append-only, ordered, and says who, when, from, to and why', async () => {
    const store = await makeStore();
    const reg = registry(store);
    await reg.registerVersion(newVersion(0.99));
    await reg.registerVersion(newVersion(0.98));
    assert.deepEqual(await reg.history(), []);
    const before = Date.now();
    await reg.setAlias('candidate', '1', 'pipeline', 'no champion yet');
    await reg.promoteCandidate('alice');
    await reg.setAlias('candidate', '2', 'pipeline');
    const promoted = await reg.promoteCandidate('bob', 'looks good');
    assert.deepEqual(promoted, { from: '1', to: '2' });
    const history = await reg.history();
    assert.deepEqual(
      history.map((e) => [e.seq, e.actor, e.alias, e.from_version, e.to_version]),
      [
        [1, 'pipeline', 'candidate', null, '1'],
        [2, 'alice', 'champion', null, '1'],
        [3, 'alice', 'candidate', '1', null],
        [4, 'pipeline', 'candidate', null, '2'],
        [5, 'bob', 'champion', '1', '2'],
        [6, 'bob', 'candidate', '2', null],
      ],
    );
    assert.equal(history[0].reason, 'no champion yet');
    assert.equal(history[4].reason, 'looks good');
    for (const e of history) {
      const t = Date.parse(e.at);
      assert.ok(t >= before - 1000 && t <= Date.now() + 1000, `event time ${e.at}`);
    }
    // One object per event, never rewritten: a create-exclusive write of an existing seq fails.
    await assert.rejects(
      store.put(REGISTRY_BUCKET, historyKey(reg.modelName, 1), '{}', { ifNoneMatch: '*' }),
      {
        code: 'MC_ERR_CONFLICT',
      },
    );
    // Rollback: the previous champion is in the history and can be set again.
    await reg.setAlias('champion', history[4].from_version!, 'bob', 'rollback');
    assert.deepEqual(await reg.aliases(), { champion: '1' });
    assert.equal((await reg.history()).length, 7);
  });

  test('promote without a candidate fails and changes nothing', async () => {
    const reg = registry(await makeStore());
    await reg.registerVersion(newVersion(0.99));
    await reg.setAlias('champion', '1', 'alice');
    await assert.rejects(reg.promoteCandidate('alice'), { code: 'MC_ERR_NOT_FOUND' });
    assert.deepEqual(await reg.aliases(), { champion: '1' });
    assert.equal((await reg.history()).length, 1);
  });

  test('two concurrent alias writers: no lost update, history has every move', async () => {
    const store = await makeStore();
    const a = registry(store);
    // A second registry object on the same store: another process would look the same.
    const b = createRegistry(store, { modelName: a.modelName });
    for (let i = 0; i < 4; i++) await a.registerVersion(newVersion(1 - i / 100));
    const writer = (reg: ModelRegistry, actor: string, alias: 'champion' | 'challenger') =>
      (async () => {
        for (let i = 0; i < moves; i++) {
          // Alternate versions so that every call is a real move.
          await reg.setAlias(alias, String((i % 4) + 1), actor);
          await reg.setAlias('candidate', String(((i + (actor === 'a' ? 0 : 2)) % 4) + 1), actor);
        }
      })();
    await Promise.all([writer(a, 'a', 'champion'), writer(b, 'b', 'challenger')]);
    const aliases = await a.aliases();
    assert.equal(aliases.champion, String(((moves - 1) % 4) + 1));
    assert.equal(aliases.challenger, String(((moves - 1) % 4) + 1));
    const history = await a.history();
    assert.deepEqual(
      history.map((e) => e.seq),
      history.map((_, i) => i + 1),
      'contiguous sequence numbers',
    );
    assert.equal(history.filter((e) => e.alias === 'champion').length, moves);
    assert.equal(history.filter((e) => e.alias === 'challenger').length, moves);
    // Every event's from is the previous event's to for the same alias: no write was lost.
    const last: Record<string, string | null> = {};
    for (const e of history) {
      assert.equal(e.from_version, last[e.alias] ?? null, `seq ${e.seq}`);
      last[e.alias] = e.to_version;
    }
    assert.equal(last.candidate, aliases.candidate);
  });
}

describe('registry on the folder store', () => {
  registrySuite(() => folderStore());

  test('a writer that stopped after moving the alias does not lose the history event', async () => {
    const store = await folderStore();
    const reg = registry(store);
    await reg.registerVersion(newVersion(0.99));
    await reg.registerVersion(newVersion(0.98));
    await reg.setAlias('champion', '1', 'alice');
    // Simulate a crash between the CAS on aliases.json and the history write.
    await store.delete(REGISTRY_BUCKET, historyKey(reg.modelName, 1));
    const seen = await reg.history();
    assert.deepEqual(
      seen.map((e) => [e.seq, e.to_version]),
      [[1, '1']],
    );
    await reg.setAlias('champion', '2', 'bob');
    assert.ok(
      await store.head(REGISTRY_BUCKET, historyKey(reg.modelName, 1)),
      'completed by the next writer',
    );
    assert.deepEqual(
      (await reg.history()).map((e) => [e.seq, e.from_version, e.to_version]),
      [
        [1, null, '1'],
        [2, '1', '2'],
      ],
    );
    assert.ok(await store.head(REGISTRY_BUCKET, aliasesKey(reg.modelName)));
  });

  test('two writer processes on one folder store: no lost update, complete history', async () => {
    const dir = await tempDir();
    const store = await folderStore(dir);
    const reg = registry(store);
    await reg.registerVersion(newVersion(0.99));
    await reg.registerVersion(newVersion(0.98));
    const moves = 6;
    await Promise.all([
      runChild([dir, reg.modelName, 'champion', 'a', String(moves)]),
      runChild([dir, reg.modelName, 'challenger', 'b', String(moves)]),
    ]);
    const history = await reg.history();
    assert.deepEqual(
      history.map((e) => e.seq),
      history.map((_, i) => i + 1),
    );
    assert.equal(history.filter((e) => e.alias === 'champion').length, moves);
    assert.equal(history.filter((e) => e.alias === 'challenger').length, moves);
    const last: Record<string, string | null> = {};
    for (const e of history) {
      assert.equal(e.from_version, last[e.alias] ?? null, `seq ${e.seq}`);
      last[e.alias] = e.to_version;
    }
    assert.deepEqual(await reg.aliases(), {
      champion: last.champion,
      challenger: last.challenger,
      ...(last.candidate ? { candidate: last.candidate } : {}),
    });
  });
});

describe('registry on S3 (s3rver)', () => {
  let server: TestS3Server | undefined;
  const stores: ObjectStore[] = [];
  before(async () => {
    server = await startS3rver();
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });
  registrySuite(async () => {
    const store = createObjectStore(
      parseConfig({
        S3_ENDPOINT: server!.endpoint,
        S3_ACCESS_KEY_ID: server!.accessKeyId,
        S3_SECRET_ACCESS_KEY: server!.secretAccessKey,
        S3_BUCKET_PREFIX: `reg${stores.length}-`,
      }),
    );
    stores.push(store);
    return store;
  }, 4);
});
