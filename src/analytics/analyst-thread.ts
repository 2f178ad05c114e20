// The thread that computes the analyst rows (analyst-off-thread.ts starts it): the sources it reads
// (a few hundred MB at tens of thousands of matches) live and die with this thread's heap, so the
// serving thread only ever holds the rows.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { openDatabase } from '../db/index.js';
import { createLogger } from '../logger.js';
import { createObjectStore } from '../storage/index.js';
import { computeAnalystData } from './analyst-data.js';
import { loadAnalystSources } from './analyst-sources.js';

const { config, schema, runId } = workerData as { config: Config; schema?: string; runId: string | null };
const log = createLogger(config.logLevel, 'analyst');
const store = createObjectStore(config, log);
try {
  const db = await openDatabase(config, { maxConnections: 2, ...(schema ? { schema } : {}) });
  try {
    const sources = await loadAnalystSources(store, db);
    // Another database than the caller's (it must read the run the caller sees): refuse.
    if (sources.runId !== runId) throw new Error(`published run ${sources.runId}, expected ${runId}`);
    parentPort!.postMessage({ t: 'data', data: computeAnalystData(sources, config.edgeThreshold) });
  } finally {
    await db.close();
  }
} catch (err) {
  parentPort!.postMessage({ t: 'error', message: err instanceof Error ? err.message : String(err) });
} finally {
  await store.close();
}
