import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { answers, type Database, type Queryable, type QueryOptions } from './database.js';
import { acquireLock } from './embedded-lock.js';
import { mapDatabaseError, withDatabaseTimeout } from './errors.js';
import { applyMigrations } from './migrations.js';

/** Options of {@link openPgliteDatabase}. */
export interface PgliteOptions {
  /** Folder of the database files; undefined = in memory. */
  dataDir: string | undefined;
  /** Schema to work in (created when missing). */
  schema: string;
}

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

/** Opens (creating when missing) an embedded PGlite database, sets its schema, and migrates it. */
export async function openPgliteDatabase(options: PgliteOptions): Promise<Database> {
  let unlock = () => {};
  if (options.dataDir !== undefined) {
    mkdirSync(path.dirname(options.dataDir), { recursive: true });
    unlock = acquireLock(options.dataDir);
  }
  let pg: PGlite | undefined;
  try {
    pg = await PGlite.create(options.dataDir);
    if (options.schema !== 'public') {
      await pg.exec(
        `CREATE SCHEMA IF NOT EXISTS "${options.schema}"; SET search_path TO "${options.schema}"`,
      );
    }
    const db = new PgliteDatabase(pg, options.schema, unlock);
    await applyMigrations(db);
    return db;
  } catch (err) {
    await pg?.close().catch(() => undefined);
    unlock();
    throw err;
  }
}
