import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { createObjectStore } from '../../src/storage/index.js';
import { testConfig } from '../db/helpers.js';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/ingest');

export interface IngestEnv {
  config: Config;
  db: Database;
  store: ObjectStore;
  cleanup(): Promise<void>;
}

/** An in-memory PGlite database and a folder object store in a temp dir. */
export async function ingestEnv(): Promise<IngestEnv> {
  const config = testConfig();
  const db = await openDatabase(config, { memory: true });
  const store = createObjectStore(config);
  return {
    config,
    db,
    store,
    async cleanup() {
      await db.close();
      await store.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Writes each body to `f.csv` in a folder of its own under `dir()` (one case, one source folder). */
export function caseFiles(dir: () => string): (body: string) => string {
  let n = 0;
  return (body) => {
    const d = path.join(dir(), `case-${++n}`);
    mkdirSync(d, { recursive: true });
    const p = path.join(d, 'f.csv');
    writeFileSync(p, body);
    return p;
  };
}
