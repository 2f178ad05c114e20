import type { Config } from '../config.js';
import { type RunningWorker, type StartWorkerOptions, startBullmqConsumer } from '../queue/index.js';
import { createWorkerRuntime } from './handlers.js';
import type { WorkerDeps } from './types.js';

/**
 * Starts an `ml` queue worker on Redis: the task handlers over `deps`, driven by the BullMQ consumer.
 * Fails (rejects) with a clear message when Redis or the model registry cannot be reached: a new
 * worker must not start blind (spec §7).
 */
export async function startWorker(
  config: Config,
  deps: WorkerDeps,
  options: StartWorkerOptions = {},
): Promise<RunningWorker> {
  const runtime = createWorkerRuntime(deps, {
    aliasRefreshMs: config.aliasRefreshMs,
    featuresRefreshMs: config.viewRefreshMs,
  });
  await runtime.checkRegistry();
  return startBullmqConsumer(config, runtime, deps.log, { ...options, onClose: () => deps.close?.() });
}
