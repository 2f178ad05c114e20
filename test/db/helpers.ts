import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';

export const PG_URL = process.env.DATABASE_URL;
export const PG_SKIP: string | false = !PG_URL && 'DATABASE_URL not set: PostgreSQL adapter tests skipped';

// Removed when the test file's process exits, so that callers need no cleanup of their own.
const tempDirs: string[] = [];
process.on('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** A config whose data dir is a fresh temp folder; `databaseUrl` only when asked for. */
export function testConfig(opts: { postgres?: boolean; env?: Record<string, string> } = {}): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-db-'));
  tempDirs.push(dataDir);
  return parseConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...(opts.postgres && PG_URL ? { DATABASE_URL: PG_URL } : {}),
    ...opts.env,
  });
}

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export interface Backend {
  name: 'pglite' | 'postgres';
  skip: string | false;
  /** A fresh, migrated, empty database; `cleanup` closes it and drops its schema/temp folder. */
  open(): Promise<{ db: Database; config: Config; cleanup: () => Promise<void> }>;
}

export const BACKENDS: Backend[] = [
  {
    name: 'pglite',
    skip: false,
    async open() {
      const config = testConfig();
      const db = await openDatabase(config, { memory: true });
      return {
        db,
        config,
        cleanup: async () => {
          await db.close();
          rmSync(config.dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    skip: PG_SKIP,
    async open() {
      const config = testConfig({ postgres: true });
      const schema = uniqueSchema();
      const db = await openDatabase(config, { schema });
      return {
        db,
        config,
        cleanup: async () => {
          await db.close();
          await dropSchema(config, schema);
          rmSync(config.dataDir, { recursive: true, force: true });
        },
      };
    },
  },
];

/** Drops a test schema through a separate connection (the test's own pool is closed by then). */
export async function dropSchema(config: Config, schema: string): Promise<void> {
  // A plain client: opening the adapter on `public` would migrate the shared test database's public schema.
  const client = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
