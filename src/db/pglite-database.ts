import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { answers, type Database, type Queryable, type QueryOptions } from './database.js';
import { createEmbeddedDatabase } from './embedded-host.js';
import { acquireLock } from './embedded-lock.js';
import { mapDatabaseError, withDatabaseTimeout } from './errors.js';
import { applyMigrations } from './migrations.js';

// The default 128 MB of shared buffers are touched at start and stay resident; a start's data needs far less.
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;

  constructor(
    private readonly pg: PGlite,
    readonly schema: string,
    private readonly unlock: () => void,
  ) {}

  async query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]> {
    const run = this.pg.query<T>(sql, params as unknown[] | undefined).then((r) => r.rows);
    try {
      return await withDatabaseTimeout(run, options?.timeoutMs);
    } catch (err) {
      return mapDatabaseError(err);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    try {
      return await this.pg.transaction((tx) =>
        fn({
          query: async <R>(sql: string, params?: readonly unknown[]) =>
            (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
        }),
      );
    } catch (err) {
      return mapDatabaseError(err);
    }
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
    pg = await PGlite.create(dataDir, { startParams: PGLITE_START_PARAMS });
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
