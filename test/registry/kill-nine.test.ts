import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { type Database, embeddedDbDir, hostEmbeddedDatabase, openDatabase } from '../../src/db/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { readPublished, readRunHistory, readVerified } from '../../src/runs/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { dropSchema, PG_SKIP, PG_URL, uniqueSchema } from '../db/helpers.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';

const ROUNDS = 6;

function startMover(dataDir: string, schema: string | undefined, env: NodeJS.ProcessEnv): ChildProcess {
  return spawnGroup(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'kill-mover.fixture.ts'), dataDir, schema ?? ''],
    { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true },
  );
}

async function runUntilKilled(child: ChildProcess, ms: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    child.stdout!.on('data', (d) => {
      if (String(d).includes('ready')) setTimeout(() => signalGroup(child, 'SIGKILL'), ms);
    });
    child.once('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`mover exited ${code}: ${err}`)),
    );
  });
}

/** Every state a reader can see is whole: aliases, pointer and histories agree with each other. */
async function assertConsistent(db: Database, dataDir: string): Promise<void> {
  const store = createObjectStore(parseConfig({ DATA_DIR: dataDir }));
  const reg = createRegistry({ db, store }, { modelName: 'kill-test' });
  const versions = new Set((await reg.listVersions({ includeFailed: true })).map((v) => v.version));
  const aliases = await reg.aliases();
  const history = await reg.history();
  for (const [alias, version] of Object.entries(aliases)) {
    assert.ok(versions.has(version), `alias ${alias} points at an existing version`);
    const last = history.filter((e) => e.alias === alias).at(-1);
    assert.equal(last?.to_version, version, `the last ${alias} event names the current version`);
  }
  assert.deepEqual(
    history.map((e) => e.seq),
    history.map((_, i) => i + 1),
    'alias history has no gap',
  );
  for (const v of versions) await reg.loadArtifact(v); // every version's file is whole
  const published = await readPublished(db);
  const runs = await readRunHistory(db);
  assert.deepEqual(
    runs.map((e) => e.seq),
    runs.map((_, i) => i + 1),
    'publication history has no gap',
  );
  if (published) {
    assert.equal(published.seq, runs.at(-1)?.seq);
    assert.equal(published.run_id, runs.at(-1)?.to_run);
    assert.ok(await readVerified(store, published.artifacts.predictions!), 'the served file is whole');
  }
  await store.close();
}

describe('kill -9 during alias moves and publications leaves the old state or the new one', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('embedded database served on its socket (a command killed beside `start`)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-kill-'));
    dirs.push(dataDir);
    const host = await hostEmbeddedDatabase(embeddedDbDir({ dataDir }));
    const db = await openDatabase(parseConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      const env = { ...process.env };
      delete env.DATABASE_URL;
      for (let round = 0; round < ROUNDS; round++) {
        await runUntilKilled(startMover(dataDir, undefined, env), 300 + round * 150);
        await assertConsistent(db, dataDir);
      }
      assert.ok((await readRunHistory(db)).length > 0, 'the mover got work done between kills');
    } finally {
      await db.close();
      await host.close();
    }
  });

  test('PostgreSQL', { skip: PG_SKIP }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-kill-'));
    dirs.push(dataDir);
    const schema = uniqueSchema('kill');
    const config = parseConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: PG_URL! });
    const db = await openDatabase(config, { schema });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await runUntilKilled(startMover(dataDir, schema, process.env), 300 + round * 150);
        await assertConsistent(db, dataDir);
      }
      assert.ok((await readRunHistory(db)).length > 0, 'the mover got work done between kills');
    } finally {
      await db.close();
      await dropSchema(config, schema);
    }
  });
});
