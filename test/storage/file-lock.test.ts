import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { isMatchcastError } from '../../src/domain/index.js';
import { acquireFileLock } from '../../src/storage/file-lock.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mc-file-lock-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a second acquirer waits for the holder and gets the lock once it is released', async () => {
  const lock = path.join(dir, 'held.lock');
  const release = await acquireFileLock(lock);
  const second: { release?: () => Promise<void> } = {};
  const waiting = acquireFileLock(lock, { timeoutMs: 5000 }).then((r) => {
    second.release = r;
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(typeof second.release, 'undefined', 'not while the first holds it');
  await release();
  await waiting;
  assert.ok(second.release);
  await second.release();
  assert.deepEqual(
    (await readdir(dir)).filter((f) => f.startsWith('held')),
    [],
    'no lock or draft file left behind',
  );
});

test('a lock file that does not parse and is fresh is not taken over (it may be a writer mid-way)', async () => {
  const lock = path.join(dir, 'fresh.lock');
  await writeFile(lock, '');
  await assert.rejects(acquireFileLock(lock, { timeoutMs: 200, staleMs: 30_000 }), (err) =>
    isMatchcastError(err, 'MC_ERR_CONFLICT'),
  );
});

test('a lock file that does not parse and is older than staleMs is taken over', async () => {
  const lock = path.join(dir, 'old.lock');
  await writeFile(lock, '{"pid":');
  const past = new Date(Date.now() - 60_000);
  await utimes(lock, past, past);
  const release = await acquireFileLock(lock, { timeoutMs: 2000, staleMs: 30_000 });
  await release();
});

test('many concurrent acquirers in one process: never two holders at once', async () => {
  const lock = path.join(dir, 'busy.lock');
  let holders = 0;
  let maxHolders = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const release = await acquireFileLock(lock, { timeoutMs: 20_000 });
      holders++;
      maxHolders = Math.max(maxHolders, holders);
      await new Promise((r) => setTimeout(r, 2));
      holders--;
      done++;
      await release();
    }),
  );
  assert.equal(done, 20);
  assert.equal(maxHolders, 1);
});
