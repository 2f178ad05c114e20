import client from 'prom-client';
import type { Config } from '../config.js';
import { registry } from '../metrics.js';
import type { ResultStoreUsage, TaskQueue } from '../queue/index.js';

/** The queue whose result store the gauges show (the app registered last). */
let source: { queue: TaskQueue; config: Config } | undefined;
let sampled: { usage: ResultStoreUsage; at: number } | undefined;
let inflight: Promise<void> | undefined;

/** Reads the queue's usage at most every 5 s; a scrape waits at most 500 ms for it. */
async function refresh(): Promise<void> {
  if (!source || (sampled && Date.now() - sampled.at < 5000)) return;
  const { queue } = source;
  inflight ??= queue
    .usage()
    .then((usage) => {
      sampled = { usage, at: Date.now() };
    })
    .catch(() => undefined)
    .finally(() => {
      inflight = undefined;
    });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([inflight, new Promise((r) => (timer = setTimeout(r, 500)))]);
  clearTimeout(timer);
}

/** Finished task results kept for task_status (memory budget: RESULT_STORE_MAX, by age RESULT_TTL). */
new client.Gauge({
  name: 'matchcast_task_results_kept',
  help: 'Finished task results kept for task_status (removed after RESULT_TTL; capped at RESULT_STORE_MAX)',
  registers: [registry],
  async collect() {
    await refresh();
    if (sampled) this.set(sampled.usage.results);
  },
});

new client.Gauge({
  name: 'matchcast_task_results_max',
  help: 'Memory cap of the result store: RESULT_STORE_MAX results',
  registers: [registry],
  collect() {
    if (source) this.set(source.config.resultStoreMax);
  },
});

new client.Gauge({
  name: 'matchcast_tasks_waiting',
  help: 'Tasks waiting for a worker (submits beyond QUEUE_MAX_WAITING answer 503 MC_ERR_QUEUE_FULL)',
  registers: [registry],
  async collect() {
    await refresh();
    if (sampled) this.set(sampled.usage.waiting);
  },
});

new client.Gauge({
  name: 'matchcast_tasks_waiting_max',
  help: 'QUEUE_MAX_WAITING: the cap on waiting tasks',
  registers: [registry],
  collect() {
    if (source) this.set(source.config.queueMaxWaiting);
  },
});

new client.Gauge({
  name: 'matchcast_broker_memory_bytes',
  help: 'Memory used by the task broker (Redis used_memory), bytes; absent for the in-process queue',
  registers: [registry],
  async collect() {
    await refresh();
    if (sampled?.usage.brokerMemoryBytes != null) this.set(sampled.usage.brokerMemoryBytes);
  },
});

/** Points the result-store gauges at `queue`; returns the function that detaches them. */
export function watchResultStore(queue: TaskQueue, config: Config): () => void {
  const mine = { queue, config };
  source = mine;
  sampled = undefined;
  return () => {
    if (source === mine) source = undefined;
  };
}
