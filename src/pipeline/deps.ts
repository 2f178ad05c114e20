import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import type { ModelRegistry } from '../registry/index.js';
import type { ObjectStore } from '../storage/index.js';
import type { Progress } from './progress.js';

/** What every stage needs; built once per process (CLI) or per test. */
export interface PipelineDeps {
  config: Config;
  db: Database;
  store: ObjectStore;
  registry: ModelRegistry;
  log: Logger;
  progress: Progress;
}

/** Stage names, in the order `pipeline run` executes them. */
export const STAGE_NAMES = [
  'features',
  'train',
  'promote',
  'backtest',
  'predict',
  'simulate',
  'drift',
] as const;
export type StageName = (typeof STAGE_NAMES)[number];
