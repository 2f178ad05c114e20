// A data folder written by the object-store layout (registry, run records and the published pointer
// as JSON documents; test/fixtures/legacy-var) is imported once into empty tables: the same versions,
// aliases, history and served run, with the model files verified from then on. On PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { importLegacyMetadata } from '../../src/pipeline/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { readArtifact, readPublished, readRunHistory, readRunRecord } from '../../src/runs/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/legacy-var');

for (const backend of BACKENDS) {
  describe(`legacy metadata import on ${backend.name}`, { skip: backend.skip }, () => {
    const closers: (() => Promise<void>)[] = [];
    after(async () => {
      for (const close of closers.reverse()) await close();
    });

    test('imports the registry, runs and pointer once; the imported state serves and moves on', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'mc-legacy-'));
      await cp(FIXTURE, dir, { recursive: true });
      const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
      const store = createObjectStore(config);
      const { db, cleanup } = await backend.open();
      closers.push(async () => {
        await store.close();
        await cleanup();
        await rm(dir, { recursive: true, force: true });
      });
      const deps = { db, store };

      const report = await importLegacyMetadata(deps);
      assert.ok(report, 'something was imported');
      assert.equal(report.models, 3, JSON.stringify(report));
      assert.ok(report.versions >= 3 && report.runs >= 1 && report.publications >= 1, JSON.stringify(report));
      assert.equal(
        await importLegacyMetadata(deps),
        null,
        'only into empty tables: a second start imports nothing',
      );

      const registry = createRegistry(deps, { modelName: 'matchcast-1x2' });
      assert.equal((await registry.aliases()).champion, '1');
      const champion = (await registry.resolve('champion'))!;
      assert.match(champion.artifact_sha256 ?? '', /^[0-9a-f]{64}$/, 'the file hash is recorded on import');
      assert.ok((await registry.loadArtifact(champion)).length > 0);
      const history = await registry.history();
      assert.deepEqual(
        history.map((e) => e.seq),
        history.map((_, i) => i + 1),
      );
      assert.equal(history.at(-1)?.to_version, '1');

      const published = (await readPublished(db))!;
      assert.equal(published.run_id, '20261126T090353Z-415968a3');
      assert.equal((await readRunRecord(db, published.run_id))?.status, 'complete');
      assert.equal((await readRunHistory(db)).at(-1)?.to_run, published.run_id);
      // Its files read back verified against the hashes the old records carried.
      const features = await readArtifact(deps, 'features');
      assert.ok(features && features.body.length === published.artifacts.features?.size);
      assert.ok(await readArtifact(deps, 'driftLatest'));

      // The imported state goes on: the next version and alias event continue the numbering.
      const next = await registry.registerVersion({
        metrics: { log_loss: 1 },
        params: {},
        feature_names: champion.feature_names,
        training_cutoff: champion.training_cutoff,
        artifact: '{}',
      });
      assert.equal(
        Number(next.version),
        Math.max(...(await registry.listVersions()).map((v) => Number(v.version))),
      );
      assert.ok(Number(next.version) > Number(champion.version));
      const event = await registry.setAlias('challenger', next.version, 'test');
      assert.equal(event?.seq, history.length + 1);
    });
  });
}
