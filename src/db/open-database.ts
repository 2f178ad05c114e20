import path from 'node:path';
import type { Config } from '../config.js';
import { MatchcastError } from '../domain/index.js';
import type { Database } from './database.js';
import { embeddedServerAnswers, embeddedSocketDir, embeddedUrl } from './embedded-host.js';
import { openPostgresDatabase } from './postgres-database.js';

export function embeddedDbDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'db');
}

export interface OpenDatabaseOptions {
  /** Schema to create (when missing) and work in via `search_path`, `[a-z_][a-z0-9_]*`. Default `public`. */
  schema?: string;
  /** Use an in-memory PGlite even when `DATABASE_URL` is set (tests). Default `false`. */
  memory?: boolean;
  /** PostgreSQL pool size. Default `10`. */
  maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens and migrates PostgreSQL when `DATABASE_URL` is set, else PGlite under `<DATA_DIR>/db` (or in memory);
 * connecting is bounded by `DB_TIMEOUT_MS`, then `MC_ERR_DATABASE_UNAVAILABLE`.
 */
export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      `Invalid database schema name "${schema}": expected [a-z_][a-z0-9_]*`,
    );
  }
  // PGlite (a WASM Postgres) is loaded only when used: a process on PostgreSQL never pays for it.
  const openPglite = async (dataDir: string | undefined) =>
    (await import('./pglite-database.js')).openPgliteDatabase(dataDir, schema);
  if (options.memory) return openPglite(undefined);
  let connectionString = config.databaseUrl;
  if (connectionString === undefined) {
    // Embedded: join the database a running `matchcast start` serves on its socket, else open it here.
    const dbDir = embeddedDbDir(config);
    if (!(await embeddedServerAnswers(dbDir))) return openPglite(dbDir);
    connectionString = embeddedUrl(embeddedSocketDir(dbDir));
  }
  return openPostgresDatabase({
    connectionString,
    schema,
    connectTimeoutMs: config.dbTimeoutMs,
    // A dead server fails a call after this long instead of hanging; requests pass a tighter per-call
    // `timeoutMs` (`config.dbTimeoutMs`), batch ingest needs the 30 s.
    statementTimeoutMs: Math.max(config.dbTimeoutMs, 30_000),
    maxConnections: options.maxConnections ?? 10,
  });
}
