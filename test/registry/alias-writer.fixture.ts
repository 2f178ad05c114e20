// Child process of registry.test.ts: moves one alias back and forth on a shared folder store.
import { parseConfig } from '../../src/config.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore } from '../../src/storage/index.js';

const [dataDir, modelName, alias, actor, moves] = process.argv.slice(2);
const store = createObjectStore(parseConfig({ DATA_DIR: dataDir }));
const reg = createRegistry(store, { modelName });
for (let i = 0; i < Number(moves); i++) {
  await reg.setAlias(alias as 'champion', String((i % 2) + 1), actor);
  await reg.setAlias('candidate', String(((i + (actor === 'a' ? 0 : 1)) % 2) + 1), actor);
}
await store.close();
