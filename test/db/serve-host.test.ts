import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { embeddedDbDir, embeddedServerAnswers, hostEmbeddedDatabase } from '../../src/db/index.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { createLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';

test('serve on an embedded folder hosts its database once, on the socket its threads and commands join', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-serve-host-'));
  const config = parseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
  const dbDir = embeddedDbDir(config);
  const ctx = await openRuntime(config, createLogger('silent'), { role: 'api' });
  try {
    assert.equal(await embeddedServerAnswers(dbDir), true, 'the database answers on the socket');
    // A second API on the same folder joins the first one's database instead of opening another.
    const second = await openRuntime(config, createLogger('silent'), { role: 'api' });
    try {
      await ctx.db.query('CREATE TABLE probe (x int)');
      await second.db.query('INSERT INTO probe VALUES (1)');
      assert.deepEqual(await ctx.db.query('SELECT x FROM probe'), [{ x: 1 }]);
    } finally {
      await second.close();
    }
  } finally {
    await ctx.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  assert.equal(await embeddedServerAnswers(dbDir), false, 'closed: no socket left');
});

test('a database that cannot be created fails with MC_ERR_DATABASE_UNAVAILABLE and frees the folder', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-host-fail-'));
  const dbDir = path.join(dir, 'db');
  // A file where the database folder should be: initdb (in its child process) cannot create it.
  await writeFile(dbDir, 'not a folder');
  try {
    await assert.rejects(hostEmbeddedDatabase(dbDir), (err: unknown) => {
      assert.ok(isMatchcastError(err, 'MC_ERR_DATABASE_UNAVAILABLE'), String(err));
      return true;
    });
    // The lock was released: once the folder can be created, the same process hosts it.
    await rm(dbDir);
    const host = await hostEmbeddedDatabase(dbDir);
    try {
      assert.equal(await embeddedServerAnswers(dbDir), true);
    } finally {
      await host.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
