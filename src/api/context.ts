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
  /** Jobs handed to this process (`matchcast start` only): enables the local `/admin/jobs` routes. */
  jobs?: AdminJobs;
}

/** What a job handed to the running server runs: the same command line as the CLI. */
export type AdminJobKind = 'ingest' | 'pipeline';

/** A job handed to the running server, as the admin routes report it. */
export interface AdminJob {
  id: string;
  kind: AdminJobKind;
  argv: string[];
  /** Who asked: `cli` (a handed-off command), `schedule` (PIPELINE_SCHEDULE) or `replay`. */
  origin: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  /** The command's exit code once finished. */
  exit_code: number | null;
  /** What the command wrote to stdout. */
  stdout: string;
  /** What the command wrote to stderr (progress, logs, errors). */
  stderr: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Runs handed-off jobs one at a time in the serving process. */
export interface AdminJobs {
  /** Queues a job; jobs run one at a time, in order. */
  submit(kind: AdminJobKind, argv: string[], origin?: string): AdminJob;
  /** A job by id (recent jobs only), or undefined. */
  get(id: string): AdminJob | undefined;
}
