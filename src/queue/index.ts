// The task queue: the TaskQueue and TaskRunner ports, BullMQ on Redis (bullmq/) and worker threads in
// this process (in-process/).

export { type RunningWorker, type StartWorkerOptions, startBullmqConsumer } from './bullmq/consumer.js';
export { type SchedulerRepeat, startPipelineScheduler } from './bullmq/scheduler.js';
export { startSourceScheduler } from './bullmq/source-scheduler.js';
export { createTaskQueue } from './create-task-queue.js';
export { failThread, serveThread, threadData } from './in-process/thread-runner.js';
export type { ResultStoreUsage, TaskName, TaskOutcome, TaskQueue, TaskRunner } from './task-queue.js';
export type {
  ModelInfoResult,
  PredictMarketsResult,
  PredictMatchResult,
  WorkerModelMeta,
} from './task-types.js';
