import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { KEYS } from '../../src/domain/index.js';
import { ingestSynthetic } from '../../src/ingest/index.js';
import { createLogger } from '../../src/logger.js';
import { bootstrapFirstRun, runPipeline } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { servedStoreView } from '../helpers/served.js';

// The whole `pipeline run`, analytics stages included, on the ingest engineer's synthetic league —
// what `matchcast start` does on a first start.
test('first start then pipeline run on synthetic league data, simulate and drift included', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-pipeline-synth-'));
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const db = await openDatabase(config, { memory: true });
  const store = createObjectStore(config);
  const log = createLogger('silent');
  const deps = {
    config,
    db,
    store,
    registry: createRegistry({ db, store }, config),
    log,
    progress: silentProgress,
  };
  const now = new Date('2026-03-01T12:00:00Z');
  try {
    const report = await ingestSynthetic(
      { seed: 1, now, regions: 2, teamsPerRegion: 8, seasons: 3 },
      { db, store },
    );
    assert.ok(report.inserted > 300);
    const first = await bootstrapFirstRun(deps, now, { refitDays: 90 });
    assert.equal(first.ran, true);
    assert.deepEqual(first.run?.skipped, []);
    // The better of the two first models (validation log loss) serves; the other stands beside it.
    const [v1, v2] = await deps.registry.listVersions();
    const better = v2!.metrics.log_loss! < v1!.metrics.log_loss! ? '2' : '1';
    assert.deepEqual(await deps.registry.aliases(), {
      champion: better,
      challenger: better === '1' ? '2' : '1',
    });
    const again = await runPipeline(deps, now, { refitDays: 90 });
    assert.ok(again.predict && again.predict.rows > 0);
    assert.ok(again.predict.champion_rows > 0, 'future fixtures come from the champion');
    for (const ref of [KEYS.features, KEYS.backtest, KEYS.predictions, KEYS.roiByRegion, KEYS.driftLatest]) {
      assert.ok(await servedStoreView({ db, store }).head(ref.bucket, ref.key), `${ref.bucket}/${ref.key}`);
    }
    // Same data, parameters and code as the first start's version of this family: reused.
    assert.equal(again.train.reused, true);
    assert.equal((await deps.registry.listVersions()).length, 2);
  } finally {
    await db.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
