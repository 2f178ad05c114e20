// Memory probe for measurements, loaded into the main thread and every worker thread with
// NODE_OPTIONS="--require ./bench/memory-probe.cjs" MEMORY_PROBE_OUT=<file>: each thread appends a JSON
// line with its own V8 heap figures every MEMORY_PROBE_MS (default 2000) ms, so that the resident
// memory of one process can be split by thread (main, embedded database, ml worker, access log).
const { appendFileSync } = require('node:fs');
const { threadId, isMainThread, workerData } = require('node:worker_threads');
const v8 = require('node:v8');

const out = process.env.MEMORY_PROBE_OUT;
if (out) {
  const MB = 1024 * 1024;
  const name = isMainThread
    ? 'main'
    : String(workerData?.workerName ?? workerData?.entry?.split('/').pop() ?? 'thread');
  const sample = () => {
    const h = v8.getHeapStatistics();
    const m = process.memoryUsage();
    const line = {
      t: Date.now(),
      pid: process.pid,
      thread: threadId,
      name,
      heap_used_mb: +(h.used_heap_size / MB).toFixed(1),
      heap_total_mb: +(h.total_heap_size / MB).toFixed(1),
      external_mb: +(h.external_memory / MB).toFixed(1),
      array_buffers_mb: +(m.arrayBuffers / MB).toFixed(1),
      rss_mb: +(m.rss / MB).toFixed(1),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  };
  setInterval(sample, Number(process.env.MEMORY_PROBE_MS ?? 2000)).unref();
}
