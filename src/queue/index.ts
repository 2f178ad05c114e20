export { bullConnection, redisOptions, redisUrlOptions } from './bullmq-queue.js';
export * from './create-task-queue.js';
export * from './task-errors.js';
export * from './task-queue.js';
export * from './task-types.js';
export * from './thread-protocol.js';
export * from './worker-presence.js';
