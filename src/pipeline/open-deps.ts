import type { Config } from '../config.js';
import { openDatabase } from '../db/index.js';
import { createLogger, type Logger } from '../logger.js';
import { createRegistry } from '../registry/index.js';
import { createObjectStore } from '../storage/index.js';
import type { PipelineDeps } from './deps.js';
import { importLegacyMetadata } from './legacy-import.js';
import { autoProgress, type Progress } from './progress.js';

/** Opens the database, the object store and the registry for a CLI run; `close()` releases them. */
export async function openPipelineDeps(
  config: Config,
  options: { log?: Logger; progress?: Progress } = {},
): Promise<PipelineDeps & { close(): Promise<void> }> {
  const log = options.log ?? createLogger(config.logLevel);
  const store = createObjectStore(config, log);
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase(config);
  } catch (err) {
    await store.close();
    throw err;
  }
  await importLegacyMetadata({ db, store }, log);
  return {
    config,
    db,
    store,
    registry: createRegistry({ db, store }, config),
    log,
    progress: options.progress ?? autoProgress(log),
    async close() {
      await Promise.allSettled([db.close(), store.close()]);
    },
  };
}
