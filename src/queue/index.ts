export * from './create-task-queue.js';
export * from './task-errors.js';
export * from './task-queue.js';
export * from './task-types.js';
