import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createRegistry, type ModelRegistry, type NewVersion } from '../../src/registry/index.js';
import { REGISTRY_BUCKET } from '../../src/registry/keys.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS, dropSchema, PG_URL, uniqueSchema } from '../db/helpers.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';
import { startS3rver, type TestS3Server } from '../helpers/s3rver.js';
import { hostSharedDatabase } from '../helpers/shared-db.js';

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

/** Runs alias-writer.fixture.ts; resolves with the moves it made and the conflicts it met. */
function runChild(
  env: Record<string, string>,
  args: string[],
): Promise<{ moved: number; conflicts: number }> {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'alias-writer.fixture.ts'), ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...env } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
      else reject(new Error(`alias writer exited ${code}: ${stderr}`));
    });
  });
}

let modelSeq = 0;
function registry(backends: { db: Database; store: ObjectStore }): ModelRegistry {
  modelSeq += 1;
  return createRegistry(backends, { modelName: `test-model-${process.pid}-${modelSeq}` });
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

/**
 * `n` handles on one database whose transactions start only once all `n` have asked for one: every
 * writer has read the aliases before any writes, the interleaving a race between processes can take.
 */
function racingHandles(db: Database, n: number): Database[] {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => {
    release = r;
  });
  return Array.from({ length: n }, () => ({
    kind: db.kind,
    schema: db.schema,
    query: (sql, params, options) => db.query(sql, params, options),
    async transaction(fn) {
      arrived += 1;
      if (arrived === n) release();
      await all;
      return db.transaction(fn);
    },
    ping: (ms) => db.ping(ms),
    close: async () => {},
  }));
}

/** `db` whose transactions fail at the first statement matching `pattern` (a crash mid-write). */
function failingAt(db: Database, pattern: RegExp): Database {
  return {
    kind: db.kind,
    schema: db.schema,
    query: (sql, params, options) => db.query(sql, params, options),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: (sql, params, options) => {
            if (pattern.test(sql)) throw new Error('test: the writer died here');
            return tx.query(sql, params, options);
          },
        }),
      ),
    ping: (ms) => db.ping(ms),
    close: async () => {},
  };
}

/** Every event's `from` is the previous event's `to` for the same alias: no move was lost. */
function assertChained(
  history: { seq: number; alias: string; from_version: string | null; to_version: string | null }[],
) {
  assert.deepEqual(
    history.map((e) => e.seq),
    history.map((_, i) => i + 1),
    'contiguous sequence numbers',
  );
  const last: Record<string, string | null> = {};
  for (const e of history) {
    assert.equal(e.from_version, last[e.alias] ?? null, `seq ${e.seq}`);
    last[e.alias] = e.to_version;
  }
  return last;
}

for (const backend of BACKENDS) {
  describe(`registry on ${backend.name}`, { skip: backend.skip }, () => {
    let db: Database;
    let store: ObjectStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ db, cleanup } = await backend.open());
      store = await folderStore();
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    test('registers numbered versions with artifacts and spec 2.7 fields', async () => {
      const reg = registry({ db, store });
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
      assert.match(v1.artifact_sha256 ?? '', /^[0-9a-f]{64}$/);
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

    test('a model file changed after registration is refused on load; a missing one is unavailable', async () => {
      const reg = registry({ db, store });
      const v = await reg.registerVersion(newVersion(0.99));
      const key = `${v.run_id}/model.json`;
      await store.put(REGISTRY_BUCKET, key, JSON.stringify({ kind: 'test', logLoss: 0.5 }));
      await assert.rejects(reg.loadArtifact(v.version), { code: 'MC_ERR_ARTIFACT_INTEGRITY' });
      await store.delete(REGISTRY_BUCKET, key);
      await assert.rejects(reg.loadArtifact(v.version), { code: 'MC_ERR_MODEL_UNAVAILABLE' });
    });

    test('a run id is never registered twice (its model file is kept) and a bad run id is refused', async () => {
      const reg = registry({ db, store });
      const v = await reg.registerVersion(newVersion(0.99));
      await assert.rejects(reg.registerVersion(newVersion(0.9, { run_id: v.run_id })), {
        code: 'MC_ERR_CONFLICT',
      });
      assert.equal(JSON.parse((await reg.loadArtifact(v.version)).toString()).logLoss, 0.99);
      assert.deepEqual(
        (await reg.listVersions()).map((x) => x.version),
        [v.version],
      );
      await assert.rejects(reg.registerVersion(newVersion(0.9, { run_id: 'nope' })), {
        code: 'MC_ERR_VALIDATION',
      });
    });

    test('concurrent registrations, from one handle and from two, get distinct consecutive numbers', async () => {
      const reg = registry({ db, store });
      const other = createRegistry({ db, store }, { modelName: reg.modelName });
      const versions = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? reg : other).registerVersion(newVersion(1 + i))),
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
      const reg = registry({ db, store });
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
      const reg = registry({ db, store });
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
      // One row per event, never rewritten: a second row with an existing seq is refused.
      await assert.rejects(
        db.query(
          `INSERT INTO model_alias_history (model_name, seq, at, actor, alias, from_version, to_version)
             VALUES ($1, 1, $2, 'x', 'champion', NULL, '2')`,
          [reg.modelName, new Date().toISOString()],
        ),
      );
      // Rollback: the previous champion is in the history and can be set again.
      await reg.setAlias('champion', history[4].from_version!, 'bob', 'rollback');
      assert.deepEqual(await reg.aliases(), { champion: '1' });
      assert.equal((await reg.history()).length, 7);
    });

    test('promote without a candidate fails and changes nothing', async () => {
      const reg = registry({ db, store });
      await reg.registerVersion(newVersion(0.99));
      await reg.setAlias('champion', '1', 'alice');
      await assert.rejects(reg.promoteCandidate('alice'), { code: 'MC_ERR_NOT_FOUND' });
      assert.deepEqual(await reg.aliases(), { champion: '1' });
      assert.equal((await reg.history()).length, 1);
    });

    test('a writer that dies before its history row leaves the alias unmoved (one transaction)', async () => {
      const reg = registry({ db, store });
      await reg.registerVersion(newVersion(0.99));
      await reg.registerVersion(newVersion(0.98));
      await reg.setAlias('champion', '1', 'alice');
      const dying = createRegistry(
        { db: failingAt(db, /INSERT INTO model_alias_history/), store },
        {
          modelName: reg.modelName,
        },
      );
      await assert.rejects(dying.setAlias('champion', '2', 'bob'), /the writer died here/);
      assert.deepEqual(await reg.aliases(), { champion: '1' }, 'the alias move was rolled back');
      assert.equal((await reg.history()).length, 1);
      await reg.setAlias('champion', '2', 'carol');
      assertChained(await reg.history());
      assert.deepEqual(
        (await reg.history()).map((e) => [e.seq, e.from_version, e.to_version]),
        [
          [1, null, '1'],
          [2, '1', '2'],
        ],
      );
    });

    test('two writers move the same alias at once: one wins, the other gets MC_ERR_CONFLICT', async () => {
      const reg = registry({ db, store });
      for (let i = 0; i < 3; i++) await reg.registerVersion(newVersion(1 - i / 100));
      await reg.setAlias('champion', '1', 'setup');
      const [ha, hb] = racingHandles(db, 2);
      const a = createRegistry({ db: ha, store }, { modelName: reg.modelName });
      const b = createRegistry({ db: hb, store }, { modelName: reg.modelName });
      const results = await Promise.allSettled([
        a.setAlias('champion', '2', 'a'),
        b.setAlias('champion', '3', 'b'),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1, JSON.stringify(results));
      assert.equal(lost.length, 1);
      assert.equal((lost[0] as PromiseRejectedResult).reason.code, 'MC_ERR_CONFLICT');
      const winner = results[0].status === 'fulfilled' ? '2' : '3';
      assert.deepEqual(await reg.aliases(), { champion: winner });
      const history = await reg.history();
      assert.equal(history.length, 2, 'only the winner recorded a move');
      assert.deepEqual([history[1].from_version, history[1].to_version], ['1', winner]);
      // The loser reads again and moves it: no retry happens behind its back.
      await (winner === '2' ? b : a).setAlias('champion', winner === '2' ? '3' : '2', 'retry');
      assertChained(await reg.history());
    });

    test('a deletion or a promotion racing an alias move: one wins, the other MC_ERR_CONFLICT', async () => {
      const reg = registry({ db, store });
      for (let i = 0; i < 3; i++) await reg.registerVersion(newVersion(1 - i / 100));
      await reg.setAlias('champion', '1', 'setup');
      await reg.setAlias('candidate', '2', 'setup');
      let [ha, hb] = racingHandles(db, 2);
      let results: PromiseSettledResult<unknown>[] = await Promise.allSettled([
        createRegistry({ db: ha, store }, { modelName: reg.modelName }).promoteCandidate('op'),
        createRegistry({ db: hb, store }, { modelName: reg.modelName }).setAlias(
          'candidate',
          '3',
          'pipeline',
        ),
      ]);
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        ['fulfilled', 'rejected'],
        JSON.stringify(results),
      );
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(rejected.reason.code, 'MC_ERR_CONFLICT');
      const after1 = await reg.aliases();
      // Either the promotion moved 2 to champion (and removed the candidate), or the candidate is 3.
      assert.ok(
        JSON.stringify(after1) === JSON.stringify({ champion: '2' }) ||
          JSON.stringify(after1) === JSON.stringify({ champion: '1', candidate: '3' }),
        JSON.stringify(after1),
      );

      await reg.setAlias('challenger', '1', 'setup');
      [ha, hb] = racingHandles(db, 2);
      results = await Promise.allSettled([
        createRegistry({ db: ha, store }, { modelName: reg.modelName }).deleteAlias('challenger', 'op'),
        createRegistry({ db: hb, store }, { modelName: reg.modelName }).setAlias('challenger', '3', 'op'),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      assert.equal(
        (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.code,
        'MC_ERR_CONFLICT',
      );
      assertChained(await reg.history());
    });

    test('concurrent writers on several aliases: every move is recorded once, none is lost', async () => {
      const reg = registry({ db, store });
      const b = createRegistry({ db, store }, { modelName: reg.modelName });
      for (let i = 0; i < 4; i++) await reg.registerVersion(newVersion(1 - i / 100));
      const moves = 6;
      const writer = (r: ModelRegistry, actor: string, alias: 'champion' | 'challenger') =>
        (async () => {
          let moved = 0;
          let conflicts = 0;
          for (let i = 0; i < moves; i++) {
            for (const [a, v] of [
              [alias, (i % 4) + 1],
              ['candidate', ((i + (actor === 'a' ? 0 : 2)) % 4) + 1],
            ] as const) {
              try {
                if (await r.setAlias(a, String(v), actor)) moved++;
              } catch (err) {
                if ((err as { code?: string }).code !== 'MC_ERR_CONFLICT') throw err;
                conflicts++;
              }
            }
          }
          return { moved, conflicts };
        })();
      const [ra, rb] = await Promise.all([writer(reg, 'a', 'champion'), writer(b, 'b', 'challenger')]);
      const history = await reg.history();
      assert.equal(history.length, ra.moved + rb.moved, 'one event per successful move');
      assert.equal(history.filter((e) => e.alias === 'champion').length, moves);
      assert.equal(history.filter((e) => e.alias === 'challenger').length, moves);
      const last = assertChained(history);
      assert.deepEqual(await reg.aliases(), {
        champion: last.champion,
        challenger: last.challenger,
        ...(last.candidate ? { candidate: last.candidate } : {}),
      });
    });

    test('two writer processes on one database: no lost update, complete history', async () => {
      // PostgreSQL: a schema both processes open; PGlite: the data folder's database served on its
      // socket, as `matchcast start` serves it to the commands run beside it.
      const dir = await tempDir();
      let config: Config;
      let env: Record<string, string>;
      let shared: { db: Database; close(): Promise<void> };
      if (backend.name === 'postgres') {
        const schema = uniqueSchema();
        config = parseConfig({ DATA_DIR: dir, DATABASE_URL: PG_URL! });
        const pgDb = await openDatabase(config, { schema });
        shared = {
          db: pgDb,
          close: async () => {
            await pgDb.close();
            await dropSchema(config, schema);
          },
        };
        env = { DATA_DIR: dir, DATABASE_URL: PG_URL!, MC_TEST_SCHEMA: schema };
      } else {
        config = parseConfig({ DATA_DIR: dir });
        shared = await hostSharedDatabase(config);
        env = { DATA_DIR: dir };
      }
      const childStore = await folderStore(dir);
      try {
        const reg = registry({ db: shared.db, store: childStore });
        await reg.registerVersion(newVersion(0.99));
        await reg.registerVersion(newVersion(0.98));
        const moves = 6;
        const [ra, rb] = await Promise.all([
          runChild(env, [reg.modelName, 'champion', 'a', String(moves)]),
          runChild(env, [reg.modelName, 'challenger', 'b', String(moves)]),
        ]);
        const history = await reg.history();
        assert.equal(history.length, ra.moved + rb.moved, 'one event per successful move');
        assert.equal(history.filter((e) => e.alias === 'champion').length, moves);
        assert.equal(history.filter((e) => e.alias === 'challenger').length, moves);
        const last = assertChained(history);
        assert.deepEqual(await reg.aliases(), {
          champion: last.champion,
          challenger: last.challenger,
          ...(last.candidate ? { candidate: last.candidate } : {}),
        });
      } finally {
        await childStore.close();
        await shared.close();
      }
    });
  });
}

describe('registry model files on S3 (s3rver)', () => {
  let server: TestS3Server | undefined;
  let store: ObjectStore | undefined;
  let db: Database | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  before(async () => {
    server = await startS3rver();
    store = createObjectStore(
      parseConfig({
        S3_ENDPOINT: server.endpoint,
        S3_ACCESS_KEY_ID: server.accessKeyId,
        S3_SECRET_ACCESS_KEY: server.secretAccessKey,
        S3_BUCKET_PREFIX: 'reg-',
      }),
    );
    ({ db, cleanup } = await BACKENDS[0].open());
  });
  after(async () => {
    await store?.close();
    await cleanup?.();
    await server?.stop();
  });

  test('written once, read back and verified; a replaced file is refused', async () => {
    const reg = registry({ db: db!, store: store! });
    const v1 = await reg.registerVersion(newVersion(0.99));
    const v2 = await reg.registerVersion(newVersion(0.98));
    assert.ok(await store!.head(REGISTRY_BUCKET, `${v1.run_id}/model.json`));
    assert.equal(JSON.parse((await reg.loadArtifact(v2.version)).toString()).logLoss, 0.98);
    await store!.put(REGISTRY_BUCKET, `${v1.run_id}/model.json`, '{"kind":"other"}');
    await assert.rejects(reg.loadArtifact(v1.version), { code: 'MC_ERR_ARTIFACT_INTEGRITY' });
  });
});
