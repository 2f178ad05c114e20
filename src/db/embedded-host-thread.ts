// The thread that owns the embedded database of `matchcast start`: PGlite on the data folder, served
// to every connection of this process, its worker threads and other commands through a Unix socket,
// so that PGlite's work never runs on the serving event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

import { EMBEDDED_START_PARAMS } from './embedded-params.js';

const { dataDir, socketPath, maxConnections } = workerData as {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
};

try {
  const db = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_START_PARAMS],
  });
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  await server.start();
  parentPort!.on('message', async (msg: { t: string }) => {
    if (msg.t !== 'stop') return;
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    parentPort!.postMessage({ t: 'stopped' });
    process.exit(0);
  });
  parentPort!.postMessage({ t: 'ready' });
} catch (err) {
  parentPort!.postMessage({ t: 'init-error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
