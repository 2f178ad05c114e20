// A command creates a new embedded database in a child process (initdb's memory leaves with it); a
// worker thread creates it in place, because terminating the thread would orphan that child.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { openPgliteDatabase } from '../../src/db/pglite-database.js';

const root = mkdtempSync(path.join(tmpdir(), 'mc-db-create-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** This process's children that run the embedded database's module. */
function creators(): string[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes('embedded-host-thread'));
}

test('from the main thread: created (by a child that has exited), opened and migrated', async () => {
  const dir = path.join(root, 'main', 'db');
  const db = await openPgliteDatabase(dir, 'public');
  try {
    assert.ok(existsSync(path.join(dir, 'PG_VERSION')));
    assert.deepEqual(creators(), []);
    assert.ok((await db.query('SELECT count(*)::int AS n FROM matches')).length === 1);
  } finally {
    await db.close();
  }
});

test('a worker thread terminated while it creates the database leaves no process behind', async () => {
  const dir = path.join(root, 'thread', 'db');
  const module = pathToFileURL(path.resolve(import.meta.dirname, '../../src/db/pglite-database.ts')).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(workerData.tsx)
       .then((tsx) => tsx.register())
       .then(() => import(workerData.module))
       .then((m) => {
       parentPort.postMessage('loaded');
       return m.openPgliteDatabase(workerData.dir, 'public');
     });`,
    { eval: true, workerData: { module, dir, tsx: import.meta.resolve('tsx/esm/api') } },
  );
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await sleep(300);
  await worker.terminate();
  assert.deepEqual(creators(), []);
});
