// The embedded database of a data folder served on its socket, as `matchcast start` does: worker
// threads, worker processes and CLI commands given the same DATA_DIR connect to it.
import type { Config } from '../../src/config.js';
import { type Database, embeddedDbDir, hostEmbeddedDatabase, openDatabase } from '../../src/db/index.js';

export interface SharedDatabase {
  /** A connection of this process. */
  db: Database;
  /** Closes the connection, then stops the host. */
  close(): Promise<void>;
}

/** Hosts the embedded database of `config.dataDir` (migrated) and connects to it. */
export async function hostSharedDatabase(config: Config): Promise<SharedDatabase> {
  const host = await hostEmbeddedDatabase(embeddedDbDir(config));
  let db: Database;
  try {
    db = await openDatabase(config, { maxConnections: 4 });
  } catch (err) {
    await host.close();
    throw err;
  }
  return {
    db,
    async close() {
      await db.close().catch(() => undefined);
      await host.close();
    },
  };
}
