// The task queue: one port (TaskQueue, TaskRunner) and two adapters — BullMQ on Redis (bullmq/: the
// producer, the consumer and the protocol they share) and worker threads in this process
// (in-process/). Other folders use only what is exported here; tests of the internals import files.

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
