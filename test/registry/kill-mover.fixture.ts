// Child process of kill-nine.test.ts: moves aliases and publishes runs in a loop until it is killed.
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { RunWriter } from '../../src/runs/index.js';
import { createObjectStore } from '../../src/storage/index.js';

const [dataDir, schema] = process.argv.slice(2);
const config = parseConfig({
  DATA_DIR: dataDir!,
  LOG_LEVEL: 'silent',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const db = await openDatabase(config, schema ? { schema } : {});
const store = createObjectStore(config);
const reg = createRegistry({ db, store }, { modelName: 'kill-test' });
const backends = { db, store };
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  try {
    if (i % 3 === 0) {
      await reg.registerVersion({
        metrics: { log_loss: 1 },
        params: {},
        feature_names: ['x'],
        training_cutoff: new Date(0),
        artifact: `{"i":${i}}`,
      });
    }
    const versions = await reg.listVersions();
    const pick = versions[i % versions.length]!.version;
    await reg.setAlias(i % 2 ? 'champion' : 'challenger', pick, 'mover');
    const run = await RunWriter.begin(backends, { kind: 'incremental' });
    await run.put('predictions', `predictions ${i}`);
    await run.publish({ gates: [], requireParentCurrent: true });
  } catch (err) {
    if (!isMatchcastError(err, 'MC_ERR_CONFLICT')) throw err;
  }
}
