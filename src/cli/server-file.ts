import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { processAlive } from '../domain/index.js';

// `<DATA_DIR>/server.json`: written by `matchcast start` once it listens, removed when it stops;
// `export` fetches from the server it names, `start --reset` refuses to delete what it serves.
export const SERVER_FILE = 'server.json';

/** What the running server records: its loopback URL, its state folder (the replay's during a replay). */
export interface ServerRecord {
  pid: number;
  url: string;
  started_at: string;
  state_dir: string;
  replay?: { as_of: string; speed: number };
}

/** Atomically: a reader never sees half a file. */
export function writeServerFile(dataDir: string, record: ServerRecord): void {
  const file = path.join(dataDir, SERVER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The JSON document in `file`, or null when it is absent or not JSON. */
export function readJsonFile<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** The record of a server that is still alive, else null (a stale file of a dead process is ignored). */
export function readLiveServer(dataDir: string): ServerRecord | null {
  const record = readJsonFile<ServerRecord>(path.join(dataDir, SERVER_FILE));
  if (!record || !Number.isInteger(record.pid) || typeof record.url !== 'string') return null;
  return record.pid !== process.pid && processAlive(record.pid) ? record : null;
}

/** Removes the record when it is this process's. */
export function removeServerFile(dataDir: string): void {
  const file = path.join(dataDir, SERVER_FILE);
  if (readJsonFile<ServerRecord>(file)?.pid === process.pid) rmSync(file, { force: true });
}

/** API_KEY, else the key `matchcast start` generated into `<DATA_DIR>/api-key`; undefined without one. */
export async function storedApiKey(config: Config): Promise<string | undefined> {
  if (config.apiKey) return config.apiKey;
  return readFile(path.join(config.dataDir, 'api-key'), 'utf8').then(
    (key) => key.trim(),
    () => undefined,
  );
}
