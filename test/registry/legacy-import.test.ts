import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { importLegacyMetadata } from '../../src/pipeline/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { listRuns, readArtifact, readPublished, readRunHistory } from '../../src/runs/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

// A data folder written by the object-store layout of the previous release (synthetic league, one
// pipeline run, then `registry alias set challenger 1`, `alias rm challenger`, `alias set champion 1`).
const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'legacy-var', 'objects');
const RUN = '20261126T090353Z-415968a3';

for (const backend of BACKENDS) {
  test(`a data folder of the object-store layout is imported once, whole (${backend.name})`, {
    skip: backend.skip,
  }, async () => {
    const { db, cleanup } = await backend.open();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-legacy-'));
    cpSync(FIXTURE, path.join(dataDir, 'objects'), { recursive: true });
    const store = createObjectStore(parseConfig({ DATA_DIR: dataDir }));
    try {
      const report = await importLegacyMetadata({ db, store });
      assert.ok(report);
      assert.equal(report.models, 3);
      assert.equal(report.runs, 1);
      assert.equal(report.publications, 1);

      const reg = createRegistry({ db, store }, { modelName: 'matchcast-1x2' });
      const versions = await reg.listVersions();
      assert.deepEqual(
        versions.map((v) => v.version),
        ['1'],
      );
      assert.deepEqual(await reg.aliases(), { champion: '1' });
      assert.deepEqual(
        (await reg.history()).map((e) => [e.seq, e.alias, e.from_version, e.to_version]),
        [
          [1, 'challenger', null, '1'],
          [2, 'challenger', '1', null],
          [3, 'champion', null, '1'],
        ],
      );
      // The model file was hashed at import: it loads, and the next alias event continues the history.
      assert.ok((await reg.loadArtifact('1')).length > 0);
      const next = await reg.setAlias('challenger', '1', 'test');
      assert.equal(next?.seq, 4);
      const goals = createRegistry({ db, store }, { modelName: 'matchcast-1x2-goals' });
      assert.equal((await goals.aliases()).champion, '1');
      assert.ok(await goals.readComparison('1'));

      assert.deepEqual(
        (await listRuns(db)).map((r) => r.run_id),
        [RUN],
      );
      const published = await readPublished(db);
      assert.equal(published?.run_id, RUN);
      assert.deepEqual(
        (await readRunHistory(db)).map((e) => e.to_run),
        [RUN],
      );
      // The served files are the run's, verified against the hashes its record kept.
      assert.ok(await readArtifact({ db, store }, 'backtest'));

      assert.equal(await importLegacyMetadata({ db, store }), null, 'a second start imports nothing');
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
      await cleanup();
    }
  });
}
