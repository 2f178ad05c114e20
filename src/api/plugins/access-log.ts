import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logger.js';

/** The requests answered in one event-loop turn, as parallel columns, and when they were taken (ms). */
export interface AccessBatch {
  time: number;
  ids: string[];
  methods: string[];
  routes: string[];
  statuses: number[];
  elapsed: number[];
}

/** Where the access lines of each turn go. */
export interface AccessLog {
  write(batch: AccessBatch): void;
  /** Writes what is pending and releases what the log holds. */
  close(): Promise<void>;
}

/** One `info` line per request through the logger's public API, as Fastify's request logger would. */
export function logBatch(log: Logger, b: AccessBatch): void {
  for (let i = 0; i < b.ids.length; i++) {
    log.info(
      {
        request_id: b.ids[i],
        method: b.methods[i],
        route: b.routes[i],
        status: b.statuses[i],
        ms: b.elapsed[i],
      },
      'request',
    );
  }
}

/** Access lines written by `log` on the calling thread. */
export function loggerAccessLog(log: Logger): AccessLog {
  return {
    write: (batch) => logBatch(log, batch),
    close: async () => undefined,
  };
}

/** Options of {@link threadAccessLog}. */
export interface ThreadAccessLogOptions {
  /** Where the thread writes (a file descriptor). Default 1, standard output. */
  fd?: number;
  /** pino's `name` field of the lines. Default `matchcast`. */
  name?: string;
  /**
   * Turns the thread may fall behind (messages queued for it) before the main thread writes the
   * oldest and the newest itself. Default 256.
   */
  slots?: number;
}

// The thread's code (CommonJS, run with `eval`): the same pino lines as `logBatch`, with the turn's
// time, written in chunks of at most 4096 characters so that a pipe never interleaves them with the
// main thread's lines (writes up to PIPE_BUF are atomic). `state[slot]` is the batch's tag while it
// waits, its negation while this thread writes it, 0 once written: the main thread writes a batch
// itself only if it claims the tag first, so no line is written twice.
const THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const pino = (await import(workerData.pino)).default;
  const state = new Int32Array(workerData.state);
  const out = pino.destination({ dest: workerData.fd, sync: true });
  let time = 0;
  let lines = [];
  const log = pino(
    { name: workerData.name, level: 'info', timestamp: () => ',"time":' + time },
    { write: (line) => lines.push(line) },
  );
  parentPort.on('message', (m) => {
    if (m === 'close') return parentPort.close();
    if (Atomics.compareExchange(state, m.slot, m.tag, -m.tag) !== m.tag) return;
    const b = m.batch;
    time = b.time;
    for (let i = 0; i < b.ids.length; i++)
      log.info({ request_id: b.ids[i], method: b.methods[i], route: b.routes[i], status: b.statuses[i], ms: b.elapsed[i] }, 'request');
    let chunk = '';
    for (const line of lines) {
      if (chunk.length > 0 && chunk.length + line.length > 4096) { out.write(chunk); chunk = ''; }
      chunk += line;
    }
    if (chunk.length > 0) out.write(chunk);
    lines = [];
    Atomics.compareExchange(state, m.slot, -m.tag, 0);
    Atomics.notify(state, m.slot);
  });
})();
`;

const TAG_RANGE = 2 ** 30;

/**
 * Access lines serialised and written on a thread of their own: the main thread hands each turn's
 * columns over in one message, so the ~2.5 µs of pino serialisation and the write per request leave
 * the event loop (docs/benchmarks.md). Nothing is lost: a batch the thread has not taken when it
 * falls a full ring behind, fails, or the process exits, is claimed and written by the main thread
 * through `log` (same fields; the line's time is when it is written), and nothing is written twice,
 * except the lines of a batch the thread failed in the middle of writing.
 */
export function threadAccessLog(log: Logger, options: ThreadAccessLogOptions = {}): AccessLog {
  const slots = options.slots ?? 256;
  const state = new Int32Array(new SharedArrayBuffer(4 * slots));
  const batches: (AccessBatch | undefined)[] = new Array(slots);
  let next = 0;
  let seq = 0;
  let alive = true;
  const worker = new Worker(THREAD, {
    eval: true,
    execArgv: [],
    workerData: {
      pino: import.meta.resolve('pino'),
      state: state.buffer,
      fd: options.fd ?? 1,
      name: options.name ?? 'matchcast',
    },
  });
  worker.unref();

  /**
   * Writes here, oldest first, every batch the thread has not taken. One it is writing is awaited
   * (bounded) while it runs, and written again in full once it has died mid-write.
   */
  const takeBack = (threadDead: boolean) => {
    for (let k = 0; k < slots; k++) {
      const slot = (next + k) % slots;
      const tag = Atomics.load(state, slot);
      if (tag < 0 && !threadDead) Atomics.wait(state, slot, tag, 100);
      else if (tag !== 0 && Atomics.compareExchange(state, slot, tag, 0) === tag)
        logBatch(log, batches[slot]!);
      batches[slot] = undefined;
    }
    log.flush();
  };
  const stop = (threadDead: boolean) => {
    if (!alive) return;
    alive = false;
    takeBack(threadDead);
  };
  const onExit = () => stop(false);
  worker.on('error', (err) => {
    log.warn({ err }, 'access-log thread failed: the main thread writes the access lines');
    stop(true);
  });
  worker.on('exit', () => stop(true));
  process.once('exit', onExit);

  return {
    write(batch) {
      if (!alive) return logBatch(log, batch);
      const slot = next;
      const old = Atomics.load(state, slot);
      if (old > 0) {
        // The thread is a full ring behind: the oldest batch and this one are written here, and
        // nothing more is queued for it until it has taken that slot's message.
        if (Atomics.compareExchange(state, slot, old, 0) === old) logBatch(log, batches[slot]!);
        batches[slot] = undefined;
        return logBatch(log, batch);
      }
      next = (next + 1) % slots;
      seq = (seq % TAG_RANGE) + 1;
      batches[slot] = batch;
      Atomics.store(state, slot, seq);
      worker.postMessage({ slot, tag: seq, batch });
    },
    async close() {
      if (!alive) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('close');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      process.off('exit', onExit);
      if (alive) await worker.terminate();
      stop(true);
    },
  };
}
