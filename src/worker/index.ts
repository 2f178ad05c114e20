// The worker: task handlers over the model registry and served features (handlers.ts), started as a
// BullMQ consumer (start-worker.ts) or in each thread of the in-process queue (thread-entry.ts).
export type { RunningWorker } from '../queue/index.js';
export { createDefaultWorkerDeps } from './default-deps.js';
export { createWorkerRuntime } from './handlers.js';
export { startWorker } from './start-worker.js';

/**
 * The module the embedded queue runs in each worker thread (pass as `threadEntry` to createTaskQueue):
 * `thread-entry.js` beside this file when running compiled (dist/), `.ts` when running the sources.
 */
export const WORKER_THREAD_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './thread-entry.ts' : './thread-entry.js',
  import.meta.url,
);
