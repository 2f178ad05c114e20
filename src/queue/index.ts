export * from './task-queue.js';
