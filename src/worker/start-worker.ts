import type { Config } from '../config.js';
import { type RunningWorker, type StartWorkerOptions, startBullmqConsumer } from '../queue/index.js';
import { createWorkerRuntime } from './handlers.js';
import type { WorkerDeps } from './types.js';

/**
 * Starts an `ml` queue worker on Redis (the BullMQ consumer); rejects when Redis or the model registry
 * cannot be reached: a new worker must not start blind (spec §7).
 */
export async function startWorker(
  config: Config,
  deps: WorkerDeps,
  options: StartWorkerOptions = {},
): Promise<RunningWorker> {
  const runtime = createWorkerRuntime(deps, config);
  await runtime.checkRegistry();
  return startBullmqConsumer(config, runtime, deps.log, { ...options, onClose: () => deps.close?.() });
}
