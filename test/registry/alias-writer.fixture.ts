// Child process of registry.test.ts: moves one alias (and the shared candidate) back and forth on the
// database of DATA_DIR (its served embedded database) or of DATABASE_URL (schema MC_TEST_SCHEMA).
// A move another writer got in first is MC_ERR_CONFLICT and counted; any other error fails the process.
// Prints `{"moved":n,"conflicts":n}`.
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore } from '../../src/storage/index.js';

const [modelName, alias, actor, moves] = process.argv.slice(2);
const config = parseConfig();
const store = createObjectStore(config);
const db = await openDatabase(config, { schema: process.env.MC_TEST_SCHEMA });
const reg = createRegistry({ db, store }, { modelName });
let moved = 0;
let conflicts = 0;
for (let i = 0; i < Number(moves); i++) {
  for (const [a, v] of [
    [alias, (i % 2) + 1],
    ['candidate', ((i + (actor === 'a' ? 0 : 1)) % 2) + 1],
  ] as const) {
    try {
      if (await reg.setAlias(a as 'champion', String(v), actor)) moved++;
    } catch (err) {
      if (!isMatchcastError(err, 'MC_ERR_CONFLICT')) throw err;
      conflicts++;
    }
  }
}
await db.close();
await store.close();
console.log(JSON.stringify({ moved, conflicts }));
