import pg from 'pg';
import { MatchcastError } from '../domain/index.js';
import { answers, type Database, type Queryable, type QueryOptions } from './database.js';
import { isSchemaGone, mapDatabaseError, withDatabaseTimeout } from './errors.js';
import { applyMigrations } from './migrations.js';

export interface PostgresOptions {
  connectionString: string;
  /** Created when missing; `public` when unset. */
  schema: string;
  /** Bound on acquiring a connection (incl. connecting), ms. */
  connectTimeoutMs: number;
  /** Server-side `statement_timeout` and client-side `query_timeout`, ms. */
  statementTimeoutMs: number;
  maxConnections: number;
}

const { INT8, NUMERIC } = pg.types.builtins;

/** bigint and numeric arrive as strings by default; every value this app stores fits a double. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as unknown as pg.CustomTypesConfig;

/** Advisory-lock namespace of schema migrations ('mc' in ASCII); the second key is the schema's hash. */
const MIGRATION_LOCK_CLASS = 0x6d63;

/** One pooled connection as a session; its failures are mapped as the pool's are. */
function clientSession(client: pg.PoolClient): Queryable & Pick<Database, 'transaction'> {
  const query = <T>(sql: string, params?: readonly unknown[]): Promise<T[]> =>
    client.query(sql, params as unknown[] | undefined).then((r) => r.rows as T[], mapDatabaseError);
  return {
    query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      await client.query('BEGIN');
      try {
        const out = await fn({ query });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
  };
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private remigrating: Promise<unknown> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    readonly schema: string,
    private readonly statementTimeoutMs: number,
  ) {}

  /** Runs `fn`; when the schema is gone, migrates again (once for all callers) and reruns it. */
  private async healing<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!isSchemaGone(err)) throw err;
      this.remigrating ??= this.migrate().finally(() => {
        this.remigrating = null;
      });
      await this.remigrating.catch((cause) => {
        const message = 'Database schema is missing and could not be created';
        throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', message, { cause });
      });
      return fn();
    }
  }

  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<T[]> {
    const config = { text: sql, values: params, query_timeout: options?.timeoutMs } as pg.QueryConfig;
    // The outer bound also covers waiting for a pooled connection.
    return this.healing(() =>
      withDatabaseTimeout(
        this.pool.query(config).then((r) => r.rows as T[]),
        options?.timeoutMs,
      ).catch(mapDatabaseError),
    );
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.healing(async () => {
      const client = await this.pool.connect().catch(mapDatabaseError);
      let broken: Error | undefined;
      try {
        return await clientSession(client).transaction(fn);
      } catch (err) {
        if (err instanceof Error && /Query read timeout|Connection terminated/i.test(err.message))
          broken = err;
        return mapDatabaseError(err);
      } finally {
        client.release(broken);
      }
    });
  }

  ping(timeoutMs: number): Promise<boolean> {
    return answers(this, timeoutMs);
  }

  async close(): Promise<void> {
    if (!this.pool.ended && !this.pool.ending) await this.pool.end();
  }

  /** Runs the migrations on one dedicated connection holding a per-schema advisory lock. */
  async migrate(): Promise<number[]> {
    const client = await this.pool.connect().catch(mapDatabaseError);
    const lock = [MIGRATION_LOCK_CLASS, this.schema];
    try {
      // Another process may be migrating: wait for its lock longer than a normal statement may run.
      await client.query(`SET statement_timeout = ${Math.max(this.statementTimeoutMs, 60_000)}`);
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', lock);
      try {
        if (this.schema !== 'public') await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        return await applyMigrations(clientSession(client));
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', lock);
      }
    } catch (err) {
      return mapDatabaseError(err);
    } finally {
      // The session's statement_timeout was changed: never hand this connection back to the pool.
      client.release(true);
    }
  }
}

/** Opens a `pg` pool bound to `options.schema`, migrates it, and returns the adapter. */
export async function openPostgresDatabase(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs, 10_000),
    idleTimeoutMillis: 30_000,
    application_name: 'matchcast',
    // search_path as a startup parameter: every pooled connection is in the schema from its first query.
    options: options.schema === 'public' ? undefined : `-c search_path=${options.schema}`,
    types: typeParsers,
  });
  // An idle client whose server went away emits 'error' on the pool; without a listener it would crash the process.
  pool.on('error', () => undefined);
  const db = new PostgresDatabase(pool, options.schema, options.statementTimeoutMs);
  try {
    await db.migrate();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return db;
}
