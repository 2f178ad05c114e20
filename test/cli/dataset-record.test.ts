import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  checkDataset,
  readDatasetRecord,
  resetEmbeddedState,
  writeDatasetRecord,
} from '../../src/cli/dataset-record.js';
import { parseConfig } from '../../src/config.js';

test('start --data on a DATA_DIR holding other data is refused, naming both ways to switch', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-dataset-'));
  try {
    const config = parseConfig({ DATA_DIR: dir });
    checkDataset(config, undefined, 100); // no --data: serve what is there
    checkDataset(config, '../shared/data/football', 0); // empty folder: it will be loaded
    writeDatasetRecord(dir, 'synthetic');
    assert.throws(
      () => checkDataset(config, '../shared/data/football', 100),
      (e: { code?: string; message: string }) =>
        e.code === 'MC_ERR_DATASET_MISMATCH' && /--reset/.test(e.message) && /DATA_DIR=/.test(e.message),
    );
    writeDatasetRecord(dir, path.resolve('../shared/data/football'));
    checkDataset(config, '../shared/data/football', 100); // same data set (path resolved): fine
    assert.throws(() => checkDataset(config, '/elsewhere', 100), { code: 'MC_ERR_DATASET_MISMATCH' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--reset deletes the embedded state but keeps the API key; refused for external stores', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-reset-'));
  try {
    await mkdir(path.join(dir, 'db'));
    await mkdir(path.join(dir, 'objects', 'models'), { recursive: true });
    await writeFile(path.join(dir, 'api-key'), 'k'.repeat(32));
    writeDatasetRecord(dir, 'synthetic');
    assert.throws(
      () => resetEmbeddedState(parseConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://x@127.0.0.1/db' })),
      { code: 'MC_ERR_CONFIG' },
    );
    assert.ok(existsSync(path.join(dir, 'db')), 'nothing deleted when refused');
    // A live process holding the database: refused.
    await writeFile(path.join(dir, 'db.lock'), String(process.ppid));
    assert.throws(() => resetEmbeddedState(parseConfig({ DATA_DIR: dir })), { code: 'MC_ERR_CONFLICT' });
    await rm(path.join(dir, 'db.lock'));
    const removed = resetEmbeddedState(parseConfig({ DATA_DIR: dir }));
    assert.equal(removed.length, 3);
    assert.ok(!existsSync(path.join(dir, 'db')) && !existsSync(path.join(dir, 'objects')));
    assert.equal(readDatasetRecord(dir), null);
    assert.ok(existsSync(path.join(dir, 'api-key')), 'the API key stays');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
