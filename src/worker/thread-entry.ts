// The module each embedded worker thread runs (src/queue/in-process/queue.ts starts it).
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { failThread, serveThread, threadData } from '../queue/index.js';
import { createDefaultWorkerDeps } from './default-deps.js';
import { createWorkerRuntime } from './handlers.js';

const data = threadData();
const config = data.config as Config;
const log = createLogger(config.logLevel, data.workerName);
try {
  const runtime = createWorkerRuntime(await createDefaultWorkerDeps(config, log), config);
  await runtime.checkRegistry();
  serveThread(runtime);
} catch (err) {
  failThread(err);
}
