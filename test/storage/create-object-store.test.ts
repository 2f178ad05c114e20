import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { createObjectStore, validateKey } from '../../src/storage/index.js';
import { validatePrefix } from '../../src/storage/keys.js';
import { S3ObjectStore } from '../../src/storage/s3-object-store.js';
import { startS3rver } from '../helpers/s3rver.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('no S3_ENDPOINT: the folder store under <DATA_DIR>/objects, with signed links', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-create-'));
  dirs.push(dir);
  const store = createObjectStore(parseConfig({ DATA_DIR: dir, PORT: '8123' }));
  assert.equal(store.kind, 'fs');
  await store.put('reports', 'r.json', '{}');
  assert.ok(existsSync(path.join(dir, 'objects', 'reports', 'r.json')));
  const url = await store.presign('reports', 'r.json', 60);
  assert.match(url, /^http:\/\/localhost:8123\/files\/reports\/r\.json\?expires=\d+&signature=[0-9a-f]{64}$/);
  assert.ok(existsSync(path.join(dir, 'url-signing.secret')));
  await store.close();
});

test('S3_ENDPOINT set: the S3 store with the configured bucket prefix', async () => {
  const server = await startS3rver();
  try {
    const store = createObjectStore(
      parseConfig({
        S3_ENDPOINT: server.endpoint,
        S3_ACCESS_KEY_ID: server.accessKeyId,
        S3_SECRET_ACCESS_KEY: server.secretAccessKey,
        S3_BUCKET_PREFIX: 'cfg-',
      }),
    );
    assert.equal(store.kind, 's3');
    assert.ok(store instanceof S3ObjectStore);
    assert.equal(store.bucketName('models'), 'cfg-models');
    await store.ensureBuckets?.();
    await store.put('models', 'a.json', '1');
    assert.equal((await store.get('models', 'a.json'))?.body.toString(), '1');
    await store.close();
  } finally {
    await server.stop();
  }
});

test('key rules: accepted and refused examples', () => {
  for (const ok of ['a', 'a/b.c', '%2e%2e/x', 'ü/ß', 'run-1/model.json', 'a..b', '...', 'x.', '.hidden']) {
    assert.equal(validateKey(ok), ok);
  }
  for (const bad of ['', 'a/', '/a', 'a//b', '..', 'a/..', 'a\\b', 'a\tb', '\ud800', '.mc-x']) {
    assert.throws(() => validateKey(bad), { code: 'MC_ERR_INVALID_KEY' }, JSON.stringify(bad));
  }
  assert.throws(() => validateKey(42), { code: 'MC_ERR_INVALID_KEY' });
  for (const ok of ['', 'a/', 'a/b', 'a/b/c.', 'registry/m']) assert.equal(validatePrefix(ok), ok);
  for (const bad of ['/', '../', 'a/../', '..', 'a//']) {
    assert.throws(() => validatePrefix(bad), { code: 'MC_ERR_INVALID_KEY' }, JSON.stringify(bad));
  }
});
