// BullMQ and ioredis (~20 MB a thread) load only in processes that use Redis: embedded ones never do.
import type { startBullmqConsumer as StartConsumer } from './consumer.js';
import type { startPipelineScheduler as StartPipeline } from './scheduler.js';
import type { startSourceScheduler as StartSources } from './source-scheduler.js';

export const startBullmqConsumer: typeof StartConsumer = async (...args) =>
  (await import('./consumer.js')).startBullmqConsumer(...args);

export const startPipelineScheduler: typeof StartPipeline = async (...args) =>
  (await import('./scheduler.js')).startPipelineScheduler(...args);

export const startSourceScheduler: typeof StartSources = async (...args) =>
  (await import('./source-scheduler.js')).startSourceScheduler(...args);
