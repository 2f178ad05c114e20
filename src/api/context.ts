import type { PredictionCache } from '../cache/index.js';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logger.js';
import type { TaskQueue } from '../queue/index.js';
import type { ModelRegistry } from '../registry/index.js';
import type { Views } from '../serving/index.js';
import type { ObjectStore } from '../storage/index.js';

/** Everything a route needs, built once by the composition root (src/runtime.ts). */
export interface AppContext {
  config: Config;
  log: Logger;
  db: Database;
  store: ObjectStore;
  queue: TaskQueue;
  cache: PredictionCache;
  registry: ModelRegistry;
  views: Views;
  /** "Now" of the service (a replay clock under `start --as-of`). Default: the wall clock. */
  clock?: Clock;
}
