import type { TaskName } from '../task-queue.js';
import type { TaskFailure } from '../task-types.js';

export type ToThread =
  | { t: 'run'; id: string; name: TaskName; payload: unknown }
  | { t: 'ping'; nonce: string };

export type FromThread =
  | { t: 'ready' }
  | { t: 'init-error'; message: string }
  | { t: 'started'; id: string }
  | { t: 'done'; id: string; ok: true; value: unknown }
  | { t: 'done'; id: string; ok: false; failure: TaskFailure }
  | { t: 'pong'; nonce: string; models?: Record<string, { version: string; run_id: string }> };

/** What a worker thread receives as `workerData`. */
export interface ThreadData {
  /** The serialisable Config of the parent. */
  config: unknown;
  entry: string;
  /** URL of `tsx/esm/api`, registered first when the entry is TypeScript. */
  tsxApi: string | null;
  /** Name of this thread as a worker: `embedded-<n>@<host>:<pid>`. */
  workerName: string;
}
