import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MatchesRepository, openDatabase } from '../../src/db/index.js';
import { dropSchema, PG_SKIP, testConfig, uniqueSchema } from './helpers.js';

// A database dropped and created again while a process serves: its next query finds no table. The
// adapter migrates the new database at once and answers, without a restart.
test('a database whose tables are gone is migrated again on the next query', { skip: PG_SKIP }, async () => {
  const config = testConfig({ postgres: true });
  const schema = uniqueSchema('recreated');
  const db = await openDatabase(config, { schema });
  try {
    const matches = new MatchesRepository(db);
    assert.equal(await matches.count(), 0);
    await dropSchema(config, schema);
    assert.equal(await matches.count(), 0, 'answered after migrating again');
    await db.transaction(async (tx) => {
      await tx.query('SELECT count(*) FROM pipeline_runs');
    });
    await dropSchema(config, schema);
    await db.transaction(async (tx) => {
      const rows = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM model_versions');
      assert.equal(rows[0]?.n, 0, 'a transaction heals too');
    });
  } finally {
    await db.close();
    await dropSchema(config, schema);
  }
});
