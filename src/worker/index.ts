// The worker: task handlers over the model registry and served features (handlers.ts), started as a
// BullMQ consumer (start-worker.ts) or in each thread of the in-process queue (thread-entry.ts).
export type { RunningWorker } from '../queue/index.js';
export { createDefaultWorkerDeps } from './default-deps.js';
export { createWorkerRuntime } from './handlers.js';
export { startWorker } from './start-worker.js';
