import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { answers, type Database, type Queryable, type QueryOptions } from './database.js';
import { createEmbeddedDatabase } from './embedded-host.js';
import { acquireLock } from './embedded-lock.js';
import { mapDatabaseError, withDatabaseTimeout } from './errors.js';
import { applyMigrations } from './migrations.js';

// Shared buffers stay resident once touched (the default 128 MB, all of them): 8 MB keep the serving
// process ~50 MB lighter, and reads beyond them are served by the operating system's page cache.
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;

  constructor(
    private readonly pg: PGlite,
    readonly schema: string,
    private readonly unlock: () => void,
  ) {}

  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]> {
    const run = this.pg.query<T>(sql, params as unknown[] | undefined).then((r) => r.rows);
    return withDatabaseTimeout(run, options?.timeoutMs).catch(mapDatabaseError);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pg
      .transaction((tx) =>
        fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
        }),
      )
      .catch(mapDatabaseError);
  }

  ping(timeoutMs: number): Promise<boolean> {
    return answers(this, timeoutMs);
  }

  async close(): Promise<void> {
    try {
      if (!this.pg.closed) await this.pg.close();
    } finally {
      this.unlock();
    }
  }
}

let template: Promise<Blob> | undefined;

// The tests' in-memory databases start from a folder saved once per PGlite version in the temp dir:
// initdb costs ~3 s of CPU an open, loading the saved folder under 1 s.
function memoryTemplate(): Promise<Blob> {
  template ??= (async () => {
    const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(entry), '../package.json'), 'utf8'));
    const file = path.join(tmpdir(), `matchcast-pglite-${pkg.version}.tar`);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      const pg = await PGlite.create(undefined, { startParams: PGLITE_START_PARAMS });
      const dump = await pg.dumpDataDir('none');
      await pg.close();
      // Renamed into place whole, so that a concurrent reader never sees part of it.
      const tmp = `${file}.${randomBytes(6).toString('hex')}`;
      await writeFile(tmp, new Uint8Array(await dump.arrayBuffer()));
      await rename(tmp, file);
      return dump;
    }
  })();
  // A failed attempt is not kept: the next open tries again.
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/** Opens (creating when missing) PGlite in `dataDir` (undefined: in memory) on `schema`, and migrates it. */
export async function openPgliteDatabase(dataDir: string | undefined, schema: string): Promise<Database> {
  let unlock = () => {};
  if (dataDir !== undefined) {
    mkdirSync(path.dirname(dataDir), { recursive: true });
    unlock = acquireLock(dataDir);
  }
  let pg: PGlite | undefined;
  try {
    // initdb in a child process, as for start's host: the memory it touches leaves with that process.
    // Not from a worker thread: terminating the thread would leave that child writing the folder.
    if (dataDir !== undefined && isMainThread) await createEmbeddedDatabase(dataDir);
    pg = await PGlite.create(dataDir, {
      startParams: PGLITE_START_PARAMS,
      ...(dataDir === undefined ? { loadDataDir: await memoryTemplate() } : {}),
    });
    if (schema !== 'public') {
      await pg.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}"`);
    }
    const db = new PgliteDatabase(pg, schema, unlock);
    await applyMigrations(db);
    return db;
  } catch (err) {
    await pg?.close().catch(() => undefined);
    unlock();
    throw err;
  }
}
