export * from './bullmq-worker.js';
export * from './default-deps.js';
export * from './handlers.js';
export * from './thread-runner.js';
export * from './types.js';

/** The module the embedded queue runs in each worker thread (pass as `threadEntry` to createTaskQueue). */
export const WORKER_THREAD_ENTRY = new URL('./thread-entry.ts', import.meta.url);
