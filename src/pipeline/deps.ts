import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { Match } from '../domain/index.js';
import type { FeatureRow } from '../features/index.js';
import type { Logger } from '../logger.js';
import type { ModelRegistry } from '../registry/index.js';
import type { RunWriter } from '../runs/index.js';
import type { ObjectStore } from '../storage/index.js';
import { autoProgress, type Progress } from './progress.js';

/** What every stage needs; built once per process (CLI) or per test. */
export interface PipelineDeps {
  config: Config;
  db: Database;
  store: ObjectStore;
  registry: ModelRegistry;
  log: Logger;
  /** Default {@link autoProgress}: bars on a terminal, one JSON log line per step otherwise. */
  progress?: Progress;
  /** The run being written: `store` is then its view (`run.store`), `run.base` the real store. */
  run?: RunWriter;
  /** What the run already holds in memory, for its analysis stages (see `AnalyticsDeps.loaded`). */
  loaded?: { matches: readonly Match[]; featureRows: readonly FeatureRow[] };
}

export function progressOf(deps: { log: Logger; progress?: Progress }): Progress {
  return deps.progress ?? autoProgress(deps.log);
}

/** A `.catch` handler for a step whose failure must not fail the run: logs a warning, resolves undefined. */
export const warnOnFailure = (log: Logger, msg: string) => (err: unknown) =>
  log.warn({ err: err instanceof Error ? err.message : String(err) }, msg);

/** Stage names, in the order `pipeline run` executes them. */
export const STAGE_NAMES = [
  'features',
  'train',
  'promote',
  'backtest',
  'fallback',
  'goals',
  'predict',
  'simulate',
  'drift',
  'performance',
] as const;
export type StageName = (typeof STAGE_NAMES)[number];
