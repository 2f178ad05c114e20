// In a child process: initdb in the folder argv[2] names, then exit (its memory leaves with it). On a
// thread: PGlite served through a Unix socket, so its work never runs on the serving event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PGLITE_START_PARAMS } from './pglite-database.js';

const open = (dataDir: string) => PGlite.create(dataDir, { startParams: PGLITE_START_PARAMS });

const port = parentPort;
if (!port) {
  try {
    await (await open(process.argv[2]!)).close();
    process.exit(0);
  } catch (err) {
    // PGlite's file-system errors carry a name and an errno, not a message.
    const e = err as { message?: string; name?: string; errno?: number } | undefined;
    process.stderr.write(e?.message || `${e?.name ?? 'error'} ${e?.errno ?? ''}`.trim());
    process.exit(1);
  }
} else {
  const { dataDir, socketPath, maxConnections } = workerData as {
    dataDir: string;
    socketPath: string;
    maxConnections: number;
  };
  try {
    const db = await open(dataDir);
    const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
    await server.start();
    port.on('message', async (msg: { t: string }) => {
      if (msg.t !== 'stop') return;
      await server.stop().catch(() => undefined);
      await db.close().catch(() => undefined);
      process.exit(0);
    });
    port.postMessage({ t: 'ready' });
  } catch (err) {
    port.postMessage({ t: 'init-error', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
}
