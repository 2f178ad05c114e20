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

/** The result-store gauges: from the queue's usage (sampled) or from the settings. */
type Read = (usage: ResultStoreUsage | undefined, config: Config) => number | null | undefined;
const GAUGES: [name: string, help: string, read: Read][] = [
  [
    'matchcast_task_results_kept',
    'Finished task results kept for task_status (removed after RESULT_TTL; capped at RESULT_STORE_MAX)',
    (usage) => usage?.results,
  ],
  [
    'matchcast_task_results_max',
    'Memory cap of the result store: RESULT_STORE_MAX results',
    (_, config) => config.resultStoreMax,
  ],
  [
    'matchcast_tasks_waiting',
    'Tasks waiting for a worker (submits beyond QUEUE_MAX_WAITING answer 503 MC_ERR_QUEUE_FULL)',
    (usage) => usage?.waiting,
  ],
  [
    'matchcast_tasks_waiting_max',
    'QUEUE_MAX_WAITING: the cap on waiting tasks',
    (_, config) => config.queueMaxWaiting,
  ],
  [
    'matchcast_broker_memory_bytes',
    'Memory used by the task broker (Redis used_memory), bytes; absent for the in-process queue',
    (usage) => usage?.brokerMemoryBytes,
  ],
];

for (const [name, help, read] of GAUGES) {
  new client.Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      await refresh();
      const v = source && read(sampled?.usage, source.config);
      if (v !== null && v !== undefined) this.set(v);
    },
  });
}

/** Points the result-store gauges at `queue`; returns the function that detaches them. */
export function watchResultStore(queue: TaskQueue, config: Config): () => void {
  const mine = { queue, config };
  source = mine;
  sampled = undefined;
  return () => {
    if (source === mine) source = undefined;
  };
}
