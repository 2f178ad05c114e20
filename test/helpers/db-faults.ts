// Database faults for tests: a real database with an off switch, and the stand-in a process gets
// when its database cannot be reached at start.
import { parseConfig } from '../../src/config.js';
import { type Database, openDatabase, openDatabaseDeferred } from '../../src/db/index.js';
import { MatchcastError } from '../../src/domain/index.js';

/** `inner` with a switch: while `down`, every call fails as an unreachable server does. */
export function breakableDb(inner: Database): Database & { down: boolean } {
  const fail = (): never => {
    throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', 'database is down (test)');
  };
  const db: Database & { down: boolean } = {
    down: false,
    kind: inner.kind,
    schema: inner.schema,
    query: async (sql, params, options) => (db.down ? fail() : inner.query(sql, params, options)),
    transaction: async (fn) => (db.down ? fail() : inner.transaction(fn)),
    ping: async (ms) => !db.down && inner.ping(ms),
    close: () => inner.close(),
  };
  return db;
}

/**
 * The database of a PostgreSQL server that does not answer (nothing listens on the port): the
 * deferred stand-in `matchcast start` runs with, failing every call with MC_ERR_DATABASE_UNAVAILABLE.
 * Close it (it retries in the background).
 */
export async function unreachableDb(): Promise<Database> {
  const config = parseConfig({ DATABASE_URL: 'postgres://mc@127.0.0.1:9/none', DB_TIMEOUT_MS: '300' });
  const { db } = await openDatabaseDeferred(() => openDatabase(config), { kind: 'postgres' });
  return db;
}
