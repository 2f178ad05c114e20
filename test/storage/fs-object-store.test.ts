import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FsObjectStore } from '../../src/storage/fs-object-store.js';
import { twoProcessRace } from './cross-process.js';
import { objectStoreBehaviour } from './object-store-behaviour.js';

const dirs: string[] = [];
async function tempRoot(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'mc-fs-store-'));
  dirs.push(d);
  return d;
}
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

objectStoreBehaviour(
  'fs',
  async () => {
    const root = path.join(await tempRoot(), 'objects');
    return {
      store: new FsObjectStore({
        root,
        publicBaseUrl: 'http://localhost:8000',
        urlSigningSecret: 'x'.repeat(64),
      }),
      cleanup: async () => {},
    };
  },
  { largeBytes: 16 << 20 },
);

describe('FsObjectStore specifics', () => {
  let root: string;
  let s: FsObjectStore;
  before(async () => {
    root = path.join(await tempRoot(), 'objects');
    s = new FsObjectStore({
      root,
      publicBaseUrl: 'http://localhost:8000/',
      urlSigningSecret: 'k'.repeat(64),
    });
  });

  test('objects live at <root>/<bucket>/<key>; no temp, lock or stray files remain', async () => {
    await s.put('reports', 'x/y.json', '{}');
    await s.put('reports', 'x/y.json', '{"a":1}', { ifMatch: (await s.head('reports', 'x/y.json'))?.etag });
    assert.equal((await stat(path.join(root, 'reports', 'x', 'y.json'))).size, 7);
    const names = await readdir(path.join(root, 'reports', 'x'));
    assert.deepEqual(names.sort(), ['.mc-meta-y.json.json', 'y.json']);
  });

  test('traversal-looking keys never touch anything outside the bucket', async () => {
    const outside = path.join(path.dirname(root), 'escaped');
    await s.put('reports', '%2e%2e/escaped', 'inside');
    assert.ok(existsSync(path.join(root, 'reports', '%2e%2e', 'escaped')));
    assert.ok(!existsSync(outside));
    assert.ok(!existsSync(path.join(root, 'escaped')));
    for (const key of ['../escaped', 'a/../../escaped', '../../../../../../tmp/escaped']) {
      await assert.rejects(s.put('reports', key, 'x'), { code: 'MC_ERR_INVALID_KEY' });
    }
    assert.ok(!existsSync(outside));
  });

  test('a file dropped in by hand (no sidecar) gets a content etag, and it changes with the content', async () => {
    await mkdir(path.join(root, 'raw-data'), { recursive: true });
    await writeFile(path.join(root, 'raw-data', 'manual.csv'), 'a,b\n1,2\n');
    const h1 = await s.head('raw-data', 'manual.csv');
    const viaStore = await new FsObjectStore({ root: path.join(await tempRoot(), 'o') }).put(
      'raw-data',
      'm',
      'a,b\n1,2\n',
    );
    assert.equal(h1?.etag, viaStore.etag);
    await writeFile(path.join(root, 'raw-data', 'manual.csv'), 'a,b\n1,3\n');
    const h2 = await s.head('raw-data', 'manual.csv');
    assert.notEqual(h2?.etag, h1?.etag);
    assert.equal((await s.get('raw-data', 'manual.csv'))?.contentType, 'text/csv; charset=utf-8');
  });

  test('a stale sidecar (content replaced behind the store) is not trusted', async () => {
    const a = await s.put('raw-data', 'stale.txt', 'one');
    await writeFile(path.join(root, 'raw-data', 'stale.txt.tmp'), 'two!');
    const { rename } = await import('node:fs/promises');
    await rename(path.join(root, 'raw-data', 'stale.txt.tmp'), path.join(root, 'raw-data', 'stale.txt'));
    const h = await s.head('raw-data', 'stale.txt');
    assert.notEqual(h?.etag, a.etag);
    assert.equal(h?.etag, (await s.get('raw-data', 'stale.txt'))?.etag);
  });

  test('an abandoned lock (dead owner) is taken over', async () => {
    await s.put('models', 'locked.json', '1');
    const lock = path.join(root, 'models', '.mc-lock-locked.json');
    await writeFile(
      lock,
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        host: (await import('node:os')).hostname(),
        nonce: 'n',
        at: Date.now(),
      }),
    );
    const t0 = Date.now();
    await s.put('models', 'locked.json', '2');
    assert.ok(Date.now() - t0 < 2000);
    assert.equal((await s.get('models', 'locked.json'))?.body.toString(), '2');
    assert.ok(!existsSync(lock));
  });

  test('a live lock held too long makes the writer give up with MC_ERR_CONFLICT', async () => {
    const impatient = new FsObjectStore({ root, lockTimeoutMs: 150 });
    await impatient.put('models', 'held.json', '1');
    const lock = path.join(root, 'models', '.mc-lock-held.json');
    await writeFile(
      lock,
      JSON.stringify({
        pid: process.pid,
        host: (await import('node:os')).hostname(),
        nonce: 'n',
        at: Date.now(),
      }),
    );
    await assert.rejects(impatient.put('models', 'held.json', '2'), { code: 'MC_ERR_CONFLICT' });
    await rm(lock);
  });

  test('a key used as a folder and as an object at once is a conflict, not a crash', async () => {
    await s.put('reports', 'dir/file.txt', 'x');
    await assert.rejects(s.put('reports', 'dir', 'y'), { code: 'MC_ERR_CONFLICT' });
    await assert.rejects(s.put('reports', 'dir/file.txt/sub', 'y'), { code: 'MC_ERR_CONFLICT' });
    assert.equal(await s.get('reports', 'dir'), null);
  });

  test('presign gives a signed /files/ link under PUBLIC_BASE_URL', async () => {
    const url = new URL(await s.presign('reports', 'dir/a b.html', 3600));
    assert.equal(url.origin, 'http://localhost:8000');
    assert.equal(url.pathname, '/files/reports/dir/a%20b.html');
    assert.match(url.searchParams.get('signature') ?? '', /^[0-9a-f]{64}$/);
    const exp = Number(url.searchParams.get('expires'));
    assert.ok(Math.abs(exp - (Date.now() / 1000 + 3600)) < 5);
    await assert.rejects(new FsObjectStore({ root }).presign('reports', 'x', 60), { code: 'MC_ERR_CONFIG' });
  });

  test('two processes: compare-and-swap loses no increment, create-exclusive has one winner', async () => {
    await twoProcessRace(s, { driver: 'fs', root }, 60, 60);
  });

  test('an unwritable root fails with MC_ERR_STORE_UNAVAILABLE', async () => {
    const file = path.join(await tempRoot(), 'not-a-dir');
    await writeFile(file, '');
    const broken = new FsObjectStore({ root: file });
    await assert.rejects(broken.put('reports', 'x.txt', 'x'), { code: 'MC_ERR_STORE_UNAVAILABLE' });
    await assert.rejects(broken.ensureBuckets(), { code: 'MC_ERR_STORE_UNAVAILABLE' });
  });
});
