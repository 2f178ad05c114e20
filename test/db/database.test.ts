import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { MatchesRepository, type MatchUpsert, openDatabase } from '../../src/db/index.js';
import { MIGRATIONS } from '../../src/db/migrations.js';
import { BACKENDS, dropSchema, PG_SKIP, testConfig, uniqueSchema } from './helpers.js';

for (const backend of BACKENDS) {
  describe(`Database on ${backend.name}`, { skip: backend.skip }, () => {
    test('migrates once, converts types, commits and rolls back transactions, pings', async () => {
      const { db, cleanup } = await backend.open();
      try {
        assert.equal(db.kind, backend.name);
        const versions = await db.query<{ version: number }>(
          'SELECT version FROM schema_migrations ORDER BY version',
        );
        assert.deepEqual(
          versions.map((v) => v.version),
          MIGRATIONS.map((m) => m.version).sort((a, b) => a - b),
        );

        const [row] = await db.query<{ n: unknown; t: unknown }>(
          "SELECT count(*) AS n, '2024-03-01T12:00:00Z'::timestamptz AS t FROM matches",
        );
        assert.equal(row.n, 0, 'count(*) is a JS number');
        assert.ok(row.t instanceof Date);
        assert.equal((row.t as Date).toISOString(), '2024-03-01T12:00:00.000Z');

        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO regions (name) VALUES ('Committed')");
        });
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO regions (name) VALUES ('RolledBack')");
            throw new Error('boom');
          }),
          /boom/,
        );
        const names = await db.query<{ name: string }>('SELECT name FROM regions ORDER BY name');
        assert.deepEqual(
          names.map((n) => n.name),
          ['Committed'],
        );

        // An SQL error is not "unavailable": it passes through with its SQLSTATE.
        await assert.rejects(
          db.query('SELECT * FROM no_such_table'),
          (err: { code?: string }) => err.code === '42P01',
        );

        assert.equal(await db.ping(1000), true);
      } finally {
        await cleanup();
      }
    });
  });
}

describe('Database on PostgreSQL: isolation, locking, failure', { skip: PG_SKIP }, () => {
  test('two processes opening one schema at once both succeed (advisory lock) and migrate it once', async () => {
    const config = testConfig({ postgres: true });
    const schema = uniqueSchema();
    try {
      const [a, b] = await Promise.all([openDatabase(config, { schema }), openDatabase(config, { schema })]);
      const rows = await a.query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
      assert.equal(rows[0].n, MIGRATIONS.length);
      // Tables live in the test schema, not in public.
      const [where] = await b.query<{ schema: string }>(
        "SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'matches' AND table_schema = $1",
        [schema],
      );
      assert.equal(where?.schema, schema);
      assert.equal(a.schema, schema);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await dropSchema(config, schema);
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  test('two processes upserting the same matches at once agree on every id', async () => {
    const config = testConfig({ postgres: true });
    const schema = uniqueSchema();
    const [a, b] = await Promise.all([openDatabase(config, { schema }), openDatabase(config, { schema })]);
    try {
      const rows: MatchUpsert[] = Array.from({ length: 300 }, (_, i) => ({
        regionName: 'England',
        tournamentName: 'Premier League',
        season: '2020-2021',
        startTimeUtc: new Date(Date.UTC(2020, 8, 1) + i * 3_600_000),
        homeTeamName: `H${i}`,
        awayTeamName: `A${i}`,
        status: 'finished',
        homeScore: 1,
        awayScore: 0,
      }));
      // The region exists already, so neither writer waits on the other's region row.
      await new MatchesRepository(a).upsertMatches([{ ...rows[0], homeTeamName: 'X', awayTeamName: 'Y' }]);
      const [ra, rb] = await Promise.all([
        new MatchesRepository(a, 50).upsertMatches(rows),
        new MatchesRepository(b, 50).upsertMatches(rows),
      ]);
      assert.equal(ra.inserted + rb.inserted, 300);
      assert.deepEqual(ra.ids, rb.ids);
      assert.ok(ra.ids.every((id) => Number.isInteger(id)));
      assert.equal(await new MatchesRepository(a).count(), 301);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await dropSchema(config, schema);
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  test('an unreachable server fails within ~dbTimeoutMs, and ping says false without throwing', async () => {
    // 10.255.255.1 is unroutable: connecting hangs until the timeout (port 1 on localhost would refuse at once).
    for (const url of [
      'postgres://postgres@127.0.0.1:1/test',
      'postgres://postgres@10.255.255.1:5432/test',
    ]) {
      const config = testConfig({ env: { DATABASE_URL: url, DB_TIMEOUT_MS: '300' } });
      const started = Date.now();
      await assert.rejects(openDatabase(config, { schema: uniqueSchema() }), {
        code: 'MC_ERR_DATABASE_UNAVAILABLE',
      });
      assert.ok(Date.now() - started < 3000, `${url} failed after ${Date.now() - started} ms`);
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  test('a closed pool: ping is false, queries are MC_ERR_DATABASE_UNAVAILABLE', async () => {
    const config = testConfig({ postgres: true });
    const schema = uniqueSchema();
    const db = await openDatabase(config, { schema });
    await db.close();
    try {
      assert.equal(await db.ping(500), false);
      await assert.rejects(db.query('SELECT 1'), { code: 'MC_ERR_DATABASE_UNAVAILABLE' });
    } finally {
      await dropSchema(config, schema);
    }
  });

  test('a slow statement is cut by the per-call timeout', async () => {
    const config = testConfig({ postgres: true });
    const schema = uniqueSchema();
    const db = await openDatabase(config, { schema });
    try {
      const started = Date.now();
      await assert.rejects(db.query('SELECT pg_sleep(5)', [], { timeoutMs: 300 }), {
        code: 'MC_ERR_DATABASE_UNAVAILABLE',
      });
      assert.ok(Date.now() - started < 2000);
      assert.equal(await db.ping(1000), true, 'the pool recovers');
    } finally {
      await db.close();
      await dropSchema(config, schema);
    }
  });
});

describe('Database on PGlite on disk', () => {
  const config = testConfig();
  after(() => rmSync(config.dataDir, { recursive: true, force: true }));

  test('persists under <dataDir>/db, reopens without re-migrating, refuses a folder another live process holds', async () => {
    const first = await openDatabase(config);
    assert.equal(first.kind, 'pglite');
    await first.query("INSERT INTO regions (name) VALUES ('Kept')");
    await first.close();

    const again = await openDatabase(config);
    const rows = await again.query<{ name: string }>('SELECT name FROM regions');
    assert.deepEqual(
      rows.map((r) => r.name),
      ['Kept'],
    );
    const migrations = await again.query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
    assert.equal(migrations[0].n, MIGRATIONS.length);
    await again.close();

    // A lock left by a live process (our parent) blocks; one left by a dead process is taken over.
    const lock = path.join(config.dataDir, 'db.lock');
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(lock, String(process.ppid));
    await assert.rejects(openDatabase(config), { code: 'MC_ERR_DATABASE_UNAVAILABLE' });
    writeFileSync(lock, '999999999');
    const taken = await openDatabase(config);
    assert.equal(await taken.ping(1000), true);
    await taken.close();
  });

  test('rejects a schema name that is not a plain identifier', async () => {
    await assert.rejects(openDatabase(config, { memory: true, schema: 'x"; DROP' }), {
      code: 'MC_ERR_CONFIG',
    });
  });
});
