// The decoded-object cache keeps a decoded copy while it is used, and lets it go once idle, so that a
// serving process that ingested once does not hold the decoded odds for good.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, mock, test } from 'node:test';
import { DECODED_IDLE_MS, readDecoded } from '../../src/ingest/decoded-cache.js';
import { FsObjectStore } from '../../src/storage/fs-object-store.js';

afterEach(() => mock.timers.reset());
const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

test('a decoded copy is reused while read, and dropped once idle', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: Date.UTC(2024, 0, 1) });
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-decoded-'));
  dirs.push(dir);
  const store = new FsObjectStore({
    root: path.join(dir, 'objects'),
    publicBaseUrl: 'http://localhost:8000/',
    urlSigningSecret: 'k'.repeat(64),
  });
  await store.put('raw-data', 'odds.json', '[1,2,3]');
  let decodes = 0;
  const read = () =>
    readDecoded(store, 'raw-data', 'odds.json', 'json', async (body) => {
      decodes++;
      return JSON.parse(body.toString('utf8')) as number[];
    });

  assert.deepEqual((await read())?.value, [1, 2, 3]);
  mock.timers.tick(DECODED_IDLE_MS - 1000);
  await read();
  assert.equal(decodes, 1, 'read again within the idle time: the cached copy');
  mock.timers.tick(DECODED_IDLE_MS - 1000);
  await read();
  assert.equal(decodes, 1, 'each read restarts the idle time');
  mock.timers.tick(DECODED_IDLE_MS * 2);
  await read();
  assert.equal(decodes, 2, 'idle for longer: dropped, decoded again');
});
