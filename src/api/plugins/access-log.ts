import { Worker } from 'node:worker_threads';
import { ATOMIC_WRITE_BYTES, atomicChunks, type Logger } from '../../logger.js';

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
  /**
   * Turns handed to the thread and not yet written before the main thread writes the newest itself
   * (a bound on the thread's queue). Default 256.
   */
  slots?: number;
  /** How long process exit waits for a batch the thread is writing. Default 10 000 ms. */
  exitWaitMs?: number;
}

// Slot states in the shared Int32Array (one word per slot, then the stop word): 0 free; t (1..TAGS)
// the batch with tag t waits for the thread; -t the thread is writing it; CLAIMED + t the main thread
// wrote it and the thread's message for it is still queued (the thread frees the slot when it gets
// there). Whoever moves t away first writes the batch, so no batch is written twice, and the main
// thread hands over a batch only into a free slot, so the thread's queue holds at most `slots`. Only
// a thread that failed (it hands its batch back as t) or hung past the exit wait (the main thread
// claims −t) has its batch written again in full.
const TAGS = 2 ** 29;
const CLAIMED = 2 ** 29;

// The thread's code, CommonJS run with `eval` (after `atomicChunks`' source): a module would need a
// second entry point in dist/ and in the benchmark's one-file bundle. It writes `logBatch`'s lines
// with the turn's time.
const THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const pino = (await import(workerData.pino)).default;
  const state = new Int32Array(workerData.state);
  const stopWord = workerData.slots;
  const out = pino.destination({ dest: workerData.fd, sync: true });
  let time = 0;
  let lines = [];
  const log = pino(
    { level: 'info', timestamp: () => ',"time":' + time },
    { write: (line) => lines.push(line) },
  ).child(workerData.bindings);
  parentPort.on('message', (m) => {
    if (m === 'close') return parentPort.close();
    if (Atomics.load(state, stopWord) !== 0) return;
    const was = Atomics.compareExchange(state, m.slot, m.tag, -m.tag);
    if (was !== m.tag) {
      if (was === ${CLAIMED} + m.tag) Atomics.compareExchange(state, m.slot, was, 0);
      return;
    }
    const b = m.batch;
    time = b.time;
    for (let i = 0; i < b.ids.length; i++)
      log.info({ request_id: b.ids[i], method: b.methods[i], route: b.routes[i], status: b.statuses[i], ms: b.elapsed[i] }, 'request');
    const chunks = atomicChunks(lines, workerData.limit);
    lines = [];
    try {
      for (const chunk of chunks) out.write(chunk);
    } catch (err) {
      // Handed back at once: the main thread writes it (again, in full) instead of waiting at exit.
      Atomics.store(state, m.slot, m.tag);
      Atomics.notify(state, m.slot);
      throw err;
    }
    Atomics.store(state, m.slot, 0);
    Atomics.notify(state, m.slot);
  });
})();
`;

/**
 * Access lines serialised and written on a thread of their own: the main thread hands each turn's
 * columns over in one message, so the ~2.5 µs of pino serialisation and the write per request leave
 * the event loop (docs/benchmarks.md). The thread's lines carry `log`'s bindings and are written in
 * chunks that a pipe keeps whole. Nothing is lost and nothing written twice: a turn the thread cannot
 * take (its queue full, or the thread failed) and whatever it has not taken when the process exits
 * are written by the main thread through `log` (same fields; the line's time is when it is written),
 * and exit waits for a batch the thread is writing. Only a batch the thread failed or hung in the
 * middle of is written again in full.
 */
export function threadAccessLog(log: Logger, options: ThreadAccessLogOptions = {}): AccessLog {
  const slots = options.slots ?? 256;
  const exitWaitMs = options.exitWaitMs ?? 10_000;
  const state = new Int32Array(new SharedArrayBuffer(4 * (slots + 1)));
  const batches: (AccessBatch | undefined)[] = new Array(slots);
  let next = 0;
  let seq = 0;
  let alive = true;
  const worker = new Worker(`const atomicChunks = ${atomicChunks.toString()};\n${THREAD}`, {
    eval: true,
    execArgv: [],
    workerData: {
      pino: import.meta.resolve('pino'),
      state: state.buffer,
      slots,
      fd: options.fd ?? 1,
      limit: ATOMIC_WRITE_BYTES,
      bindings: log.bindings(),
    },
  });
  worker.unref();

  /** Claims slot `slot` from state `tag` and writes its batch here; false if the thread moved first. */
  const claim = (slot: number, tag: number) => {
    if (Atomics.compareExchange(state, slot, tag, CLAIMED + tag) !== tag) return false;
    logBatch(log, batches[slot]!);
    return true;
  };
  /**
   * Writes here, oldest first, every batch the thread has not taken. One the thread is writing is
   * awaited (up to `exitWaitMs`) while it runs, and written again in full once it has died.
   */
  const takeBack = (threadDead: boolean) => {
    Atomics.store(state, slots, 1); // the thread takes nothing more
    const deadline = Date.now() + exitWaitMs;
    for (let k = 0; k < slots; k++) {
      const slot = (next + k) % slots;
      for (;;) {
        const tag = Atomics.load(state, slot);
        if (tag === 0 || tag > CLAIMED) break;
        if (tag > 0) {
          if (claim(slot, tag)) break;
        } else if (threadDead || Date.now() >= deadline) {
          if (claim(slot, tag)) break;
        } else Atomics.wait(state, slot, tag, Math.max(1, deadline - Date.now()));
      }
      batches[slot] = undefined;
    }
    log.flush();
  };
  const onExit = () => stop(false);
  const stop = (threadDead: boolean) => {
    if (!alive) return;
    alive = false;
    process.off('exit', onExit);
    takeBack(threadDead);
  };
  worker.on('error', (err) => {
    log.warn({ err }, 'access-log thread failed: the main thread writes the access lines');
    stop(true);
  });
  worker.on('exit', () => stop(true));
  process.once('exit', onExit);

  return {
    write(batch) {
      const slot = next;
      // Not free: the thread is a full queue behind (or gone), so this turn is written here.
      if (!alive || Atomics.load(state, slot) !== 0) return logBatch(log, batch);
      next = (next + 1) % slots;
      seq = (seq % TAGS) + 1;
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
      if (alive) await worker.terminate();
      stop(true);
    },
  };
}
