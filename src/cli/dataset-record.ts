import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { MatchcastError, processAlive } from '../domain/index.js';
import { readJsonFile, readLiveServer } from './server-file.js';

/** `<DATA_DIR>/dataset.json`: which data `matchcast start` loaded into this folder on its first start. */
const DATASET_FILE = 'dataset.json';

/** What the first start loaded: the absolute path of the CSV file or folder, or `synthetic`. */
interface DatasetRecord {
  source: string;
  loaded_at: string;
}

export function readDatasetRecord(dataDir: string): DatasetRecord | null {
  const r = readJsonFile<DatasetRecord>(path.join(dataDir, DATASET_FILE));
  return typeof r?.source === 'string' ? r : null;
}

export function writeDatasetRecord(dataDir: string, source: string): void {
  const record: DatasetRecord = { source, loaded_at: new Date().toISOString() };
  writeFileSync(path.join(dataDir, DATASET_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

/** The recorded name of a `--data` argument (absolute), or `synthetic` without one. */
export function datasetSource(data: string | undefined): string {
  return data === undefined ? 'synthetic' : path.resolve(data);
}

/** Refuses `start --data X` on a DATA_DIR holding other data, naming it and the two ways to switch. */
export function checkDataset(config: Config, data: string | undefined, matchCount: number): void {
  if (data === undefined || matchCount === 0) return;
  const wanted = datasetSource(data);
  const record = readDatasetRecord(config.dataDir);
  if (record?.source === wanted) return;
  const held = record
    ? record.source === 'synthetic'
      ? 'the synthetic league'
      : record.source
    : `${matchCount} matches loaded earlier (source not recorded)`;
  throw new MatchcastError(
    'MC_ERR_DATASET_MISMATCH',
    `${config.dataDir} already holds ${held}; --data ${data} was not loaded. To switch, either start ` +
      `afresh in this folder with \`matchcast start --data ${data} --reset\` (deletes its database, ` +
      `objects and models), or keep both with a folder per data set: ` +
      `\`DATA_DIR=${path.join(path.dirname(config.dataDir), `${path.basename(config.dataDir)}-${path.basename(wanted)}`)} matchcast start --data ${data}\`.`,
  );
}

// `start --reset`: deletes DATA_DIR's embedded state but the API key and URL-signing secret. Refused
// with PostgreSQL or S3 (not this folder's data) and while a process has the folder open.
export function resetEmbeddedState(config: Config): string[] {
  if (config.databaseUrl !== undefined || config.s3Endpoint !== undefined) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      '--reset only clears embedded state (PGlite and the folder store); DATABASE_URL or S3_ENDPOINT is set',
    );
  }
  const server = readLiveServer(config.dataDir);
  if (server) {
    throw new MatchcastError(
      'MC_ERR_CONFLICT',
      `a server (pid ${server.pid}) is running on ${config.dataDir}; stop it before --reset`,
    );
  }
  const lock = path.join(config.dataDir, 'db.lock');
  const holder = existsSync(lock) ? Number(readFileSync(lock, 'utf8').trim()) : 0;
  if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processAlive(holder)) {
    throw new MatchcastError(
      'MC_ERR_CONFLICT',
      `process ${holder} has the embedded database of ${config.dataDir} open; stop it before --reset`,
    );
  }
  // first-start.json: the marker of a finished first start (src/pipeline/bootstrap.ts).
  const names = ['db', 'db.lock', 'objects', 'cache', DATASET_FILE, 'replay', 'first-start.json'];
  const removed = names.map((name) => path.join(config.dataDir, name)).filter((p) => existsSync(p));
  for (const p of removed) rmSync(p, { recursive: true, force: true });
  return removed;
}
