// The task queue: the TaskQueue and TaskRunner ports, BullMQ on Redis (bullmq/) and worker threads in
// this process (in-process/).

export type { RunningWorker, StartWorkerOptions } from './bullmq/consumer.js';
export { startBullmqConsumer, startPipelineScheduler, startSourceScheduler } from './bullmq/lazy.js';
export type { SchedulerRepeat } from './bullmq/scheduler.js';
export { createTaskQueue } from './create-task-queue.js';
export { failThread, serveThread, threadData } from './in-process/thread-runner.js';
export type { ResultStoreUsage, TaskName, TaskOutcome, TaskQueue, TaskRunner } from './task-queue.js';
export type {
  ModelInfoResult,
  PredictMarketsResult,
  PredictMatchResult,
  WorkerModelMeta,
} from './task-types.js';
