// The thread that owns the embedded database of `matchcast start`: PGlite on the data folder, served
// to every connection of this process, its worker threads and other commands through a Unix socket,
// so that PGlite's work never runs on the serving event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { dataDir, socketPath, maxConnections, initOnly } = workerData as {
  dataDir: string;
  socketPath: string;
  maxConnections: number;
  /** Create the database, close it and exit (embedded-host.ts runs this on a thread of its own). */
  initOnly?: boolean;
};

try {
  // PostgreSQL's default 128 MB of shared buffers are touched at start, resident for good in this
  // process; the data of a start (tens of MB) needs a fraction of them: 32 MB hold ~100 MB less.
  const db = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
  });
  if (initOnly) {
    await db.close();
    parentPort!.postMessage({ t: 'ready' });
    process.exit(0);
  }
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
