import { parentPort, workerData } from 'node:worker_threads';
import { expiredFailure, isExpiredPayload, toTaskFailure } from '../task-errors.js';
import type { TaskRunner } from '../task-queue.js';
import type { FromThread, ThreadData, ToThread } from './thread-protocol.js';

export function threadData(): ThreadData {
  return workerData as ThreadData;
}

/** Serves the in-process queue from a worker thread: runs each task with `runtime`, reports started/done. */
export function serveThread(runtime: TaskRunner): void {
  const port = parentPort;
  if (!port) throw new Error('serveThread must run inside a worker thread');
  const send = (msg: FromThread) => port.postMessage(msg);
  port.on('message', (msg: ToThread) => {
    if (msg.t === 'ping') {
      send({ t: 'pong', nonce: msg.nonce, models: runtime.loadedModels() });
      return;
    }
    const expiredAt = isExpiredPayload(msg.payload);
    if (expiredAt !== undefined) {
      send({ t: 'done', id: msg.id, ok: false, failure: expiredFailure(expiredAt) });
      return;
    }
    send({ t: 'started', id: msg.id });
    runtime.run(msg.name, msg.payload).then(
      (value) => send({ t: 'done', id: msg.id, ok: true, value }),
      (err) => send({ t: 'done', id: msg.id, ok: false, failure: toTaskFailure(err) }),
    );
  });
  send({ t: 'ready' });
}

/** Tells the queue that the thread could not start (e.g. registry unreachable), then exits. */
export function failThread(err: unknown): never {
  const msg: FromThread = { t: 'init-error', message: err instanceof Error ? err.message : String(err) };
  parentPort?.postMessage(msg);
  process.exit(1);
}
