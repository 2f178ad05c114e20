import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ObjectStore } from '../../src/storage/index.js';

const run = promisify(execFile);
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'cas-worker.ts');

/**
 * Two processes increment one counter with compare-and-swap and race for create-exclusive keys:
 * no increment may be lost and every key must have exactly one winner.
 */
export async function twoProcessRace(
  store: ObjectStore,
  job:
    | { driver: 'fs'; root: string }
    | { driver: 's3'; endpoint: string; maxAttempts?: number; bucketPrefix?: string },
  increments: number,
  createKeys: number,
): Promise<void> {
  await store.put('models', 'counter.txt', '0');
  const startAt = Date.now() + 4000;
  const spawn = (tag: string) =>
    run(
      process.execPath,
      ['--import', 'tsx', WORKER, JSON.stringify({ ...job, increments, createKeys, tag, startAt })],
      {
        timeout: 50_000,
      },
    );
  const [a, b] = await Promise.all([spawn('A'), spawn('B')]);
  const ra = JSON.parse(a.stdout.trim().split('\n').pop() ?? '{}') as { conflicts: number; won: number[] };
  const rb = JSON.parse(b.stdout.trim().split('\n').pop() ?? '{}') as { conflicts: number; won: number[] };
  assert.equal((await store.get('models', 'counter.txt'))?.body.toString(), String(2 * increments));
  const all = [...ra.won, ...rb.won].sort((x, y) => x - y);
  assert.deepEqual(
    all,
    Array.from({ length: createKeys }, (_, i) => i),
    'each key has exactly one winner',
  );
  for (const k of ra.won) assert.equal((await store.get('models', `create/${k}.txt`))?.body.toString(), 'A');
  for (const k of rb.won) assert.equal((await store.get('models', `create/${k}.txt`))?.body.toString(), 'B');
  console.log(
    `# two processes: conflicts A=${ra.conflicts} B=${rb.conflicts}, creates A=${ra.won.length} B=${rb.won.length}`,
  );
}
