import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FsObjectStore } from '../../src/storage/fs-object-store.js';
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

  test('objects live at <root>/<bucket>/<key>; no temp or other files beside them', async () => {
    await s.put('reports', 'x/y.json', '{}');
    await s.put('reports', 'x/y.json', '{"a":1}');
    assert.equal((await stat(path.join(root, 'reports', 'x', 'y.json'))).size, 7);
    assert.deepEqual(await readdir(path.join(root, 'reports', 'x')), ['y.json']);
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

  test('a file dropped in by hand is listed and read, and its etag changes when it is replaced', async () => {
    await mkdir(path.join(root, 'raw-data'), { recursive: true });
    await writeFile(path.join(root, 'raw-data', 'manual.csv'), 'a,b\n1,2\n');
    const h1 = await s.head('raw-data', 'manual.csv');
    assert.equal(h1?.size, 8);
    assert.equal((await s.get('raw-data', 'manual.csv'))?.etag, h1?.etag);
    assert.equal((await s.get('raw-data', 'manual.csv'))?.contentType, 'text/csv; charset=utf-8');
    // Replaced the way every put replaces a file: a new file renamed over it.
    await writeFile(path.join(root, 'raw-data', 'manual.csv.new'), 'a,b\n1,3\n');
    await rename(path.join(root, 'raw-data', 'manual.csv.new'), path.join(root, 'raw-data', 'manual.csv'));
    const h2 = await s.head('raw-data', 'manual.csv');
    assert.notEqual(h2?.etag, h1?.etag);
    assert.equal((await s.get('raw-data', 'manual.csv'))?.body.toString(), 'a,b\n1,3\n');
  });

  test('a data folder of an earlier version (metadata sidecars, a temp file) reads, lists and deletes', async () => {
    // The layout earlier versions wrote: `.mc-meta-<name>.json` beside each object, stale temp files.
    const old = path.join(await tempRoot(), 'objects');
    const dir = path.join(old, 'models', 'registry', 'm');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'aliases.json'), '{"production":1}');
    const sidecar = { etag: 'd41d8cd98f00b204e9800998ecf8427e', size: 16, ino: '1', mtimeNs: '1' };
    await writeFile(path.join(dir, '.mc-meta-aliases.json.json'), JSON.stringify(sidecar));
    await writeFile(path.join(dir, 'v1.json'), '{"version":1}');
    await writeFile(path.join(dir, '.mc-meta-v1.json.json'), JSON.stringify({ ...sidecar, size: 13 }));
    await writeFile(path.join(dir, '.mc-tmp-v2.json-0123456789ab'), '{"vers');
    await writeFile(path.join(old, 'models', '.mc-lock-x.json'), '{}');
    const legacy = new FsObjectStore({ root: old });
    assert.deepEqual(
      (await legacy.list('models')).map((o) => [o.key, o.size]),
      [
        ['registry/m/aliases.json', 16],
        ['registry/m/v1.json', 13],
      ],
    );
    const got = await legacy.get('models', 'registry/m/aliases.json');
    assert.equal(got?.body.toString(), '{"production":1}');
    assert.equal(got?.contentType, 'application/json');
    // The sidecar's (wrong) etag is not used: the tag is the file's own.
    assert.notEqual(got?.etag, sidecar.etag);
    assert.equal((await legacy.head('models', 'registry/m/aliases.json'))?.etag, got?.etag);
    // A put over an old object replaces it; a delete removes the object with its sidecar.
    await legacy.put('models', 'registry/m/aliases.json', '{"production":2}');
    assert.equal(
      (await legacy.get('models', 'registry/m/aliases.json'))?.body.toString(),
      '{"production":2}',
    );
    await legacy.delete('models', 'registry/m/v1.json');
    assert.equal(await legacy.get('models', 'registry/m/v1.json'), null);
    assert.ok(!(await readdir(dir)).includes('.mc-meta-v1.json.json'));
    assert.deepEqual(
      (await legacy.list('models', 'registry/')).map((o) => o.key),
      ['registry/m/aliases.json'],
    );
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

  test('an unwritable root fails with MC_ERR_STORE_UNAVAILABLE', async () => {
    const file = path.join(await tempRoot(), 'not-a-dir');
    await writeFile(file, '');
    const broken = new FsObjectStore({ root: file });
    await assert.rejects(broken.put('reports', 'x.txt', 'x'), { code: 'MC_ERR_STORE_UNAVAILABLE' });
    await assert.rejects(broken.ensureBuckets(), { code: 'MC_ERR_STORE_UNAVAILABLE' });
  });
});
