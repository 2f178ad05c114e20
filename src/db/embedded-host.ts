import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { forkModule, MatchcastError, siblingModule, startModuleThread } from '../domain/index.js';
import { acquireLock } from './embedded-lock.js';

/** PostgreSQL clients look for `<dir>/.s.PGSQL.<port>`; the port is only part of the name. */
const SOCKET_PORT = 5432;
/** Longest Unix socket path Linux accepts (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** The folder holding the socket of the embedded database in `dbDir` (beside it, or under /tmp when too long). */
export function embeddedSocketDir(dbDir: string): string {
  const beside = `${dbDir}.socket`;
  if (`${beside}/.s.PGSQL.${SOCKET_PORT}`.length <= MAX_SOCKET_PATH) return beside;
  const hash = createHash('sha256').update(path.resolve(dbDir)).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `matchcast-db-${hash}`);
}

export function embeddedUrl(socketDir: string): string {
  return `postgresql://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(socketDir)}`;
}

export async function embeddedServerAnswers(dbDir: string): Promise<boolean> {
  const socketPath = path.join(embeddedSocketDir(dbDir), `.s.PGSQL.${SOCKET_PORT}`);
  if (!existsSync(socketPath)) return false;
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function ready(thread: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    thread.once('message', (msg: { t: string; message?: string }) =>
      msg.t === 'ready'
        ? resolve()
        : reject(new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', `embedded database: ${msg.message}`)),
    );
    thread.once('error', reject);
    thread.once('exit', (code) =>
      reject(new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', `embedded database thread exited (${code})`)),
    );
  });
}

/** initdb in `dbDir` unless done, in a child process: the memory initdb touches leaves with it. */
export async function createEmbeddedDatabase(dbDir: string): Promise<void> {
  if (existsSync(path.join(dbDir, 'PG_VERSION'))) return;
  const child = forkModule(siblingModule(import.meta.url, './embedded-host-thread'), {
    args: [dbDir],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) return resolve();
      const why = stderr.trim() || `exit ${code}`;
      reject(new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', `embedded database: ${why}`));
    });
  });
}

export interface EmbeddedHost {
  /** The connection string every client of this data folder uses. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the database in `dbDir` from a thread behind a Unix socket (pglite-socket keeps each transaction
 * whole). Takes the folder's lock; MC_ERR_DATABASE_UNAVAILABLE when another process holds it.
 */
export async function hostEmbeddedDatabase(dbDir: string): Promise<EmbeddedHost> {
  mkdirSync(path.dirname(dbDir), { recursive: true });
  const unlock = acquireLock(dbDir);
  const socketDir = embeddedSocketDir(dbDir);
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  let thread: Worker | undefined;
  try {
    mkdirSync(socketDir, { recursive: true, mode: 0o700 });
    // A socket left by a killed server: the lock above says its owner is gone.
    rmSync(socketPath, { force: true });
    await createEmbeddedDatabase(dbDir);
    thread = startModuleThread(siblingModule(import.meta.url, './embedded-host-thread'), {
      dataDir: dbDir,
      socketPath,
      maxConnections: 64,
    });
    await ready(thread);
  } catch (err) {
    await thread?.terminate();
    unlock();
    throw err;
  }
  const host = thread;
  let closing: Promise<void> | undefined;
  return {
    url: embeddedUrl(socketDir),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => host.once('exit', () => resolve()));
        host.postMessage({ t: 'stop' });
        const timer = setTimeout(() => void host.terminate(), 10_000);
        await stopped;
        clearTimeout(timer);
        rmSync(socketPath, { force: true });
        unlock();
      })();
      return closing;
    },
  };
}
