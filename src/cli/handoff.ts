import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { readLiveServer, type ServerRecord } from './server-file.js';

/** Options of {@link handOffToServer}. */
export interface HandOffOptions {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Poll interval for the job's state and output, ms. Default `300`. */
  pollMs?: number;
  /** Give up waiting after this long (the job carries on in the server), ms. Default 30 min. */
  timeoutMs?: number;
}

/** Options whose value is a path: made absolute, since the server's working folder may differ. */
const PATH_OPTIONS = new Set(['--source']);

/** `argv` with path options made absolute against this process's working folder. */
export function absolutePaths(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    if (eq > 0 && PATH_OPTIONS.has(a.slice(0, eq))) {
      out.push(`${a.slice(0, eq)}=${path.resolve(a.slice(eq + 1))}`);
    } else if (PATH_OPTIONS.has(a) && i + 1 < argv.length) {
      out.push(a, path.resolve(argv[++i]!));
    } else out.push(a);
  }
  return out;
}

/** The key the running embedded server checks: API_KEY, else the one `start` generated under DATA_DIR. */
async function serverKey(config: Config): Promise<string | undefined> {
  if (config.apiKey) return config.apiKey;
  try {
    return (await readFile(path.join(config.dataDir, 'api-key'), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

interface JobView {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  exit_code: number | null;
  stdout: string;
  stderr: string;
  stdout_length: number;
  stderr_length: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * When `matchcast start` serves from this DATA_DIR (embedded database, which admits one process),
 * runs `matchcast <kind> <argv>` inside that server over its loopback admin route, relays its
 * output and returns its exit code. Returns null when there is nothing to hand off to (PostgreSQL
 * in use, or no live server recorded): the caller then runs the command itself.
 */
export async function handOffToServer(
  config: Config,
  kind: 'ingest' | 'pipeline',
  argv: readonly string[],
  options: HandOffOptions,
): Promise<number | null> {
  if (config.databaseUrl !== undefined) return null;
  const server: ServerRecord | null = readLiveServer(config.dataDir);
  if (!server) return null;
  const key = await serverKey(config);
  const { out, err } = options;
  if (!key) {
    err(
      `matchcast ${kind}: a server (pid ${server.pid}) holds the embedded database but its API key is unknown; set API_KEY\n`,
    );
    return 1;
  }
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  err(
    `matchcast ${kind}: the server at ${server.url} (pid ${server.pid}) holds the embedded database; running the job there\n`,
  );
  let job: JobView;
  try {
    const res = await fetch(`${server.url}/admin/jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind, argv: absolutePaths(argv) }),
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 202) {
      err(`matchcast ${kind}: the server refused the job (HTTP ${res.status}): ${await res.text()}\n`);
      return 1;
    }
    job = (await res.json()) as JobView;
  } catch (e) {
    err(`matchcast ${kind}: cannot reach the server at ${server.url}: ${(e as Error).message}\n`);
    return 1;
  }
  let outOffset = 0;
  let errOffset = 0;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  for (;;) {
    if (job.stdout) out(job.stdout);
    if (job.stderr) err(job.stderr);
    outOffset = job.stdout_length;
    errOffset = job.stderr_length;
    if (job.state === 'done' || job.state === 'failed') return job.exit_code ?? 1;
    if (Date.now() > deadline) {
      err(`matchcast ${kind}: stopped waiting; job ${job.id} carries on in the server\n`);
      return 1;
    }
    await sleep(options.pollMs ?? 300);
    try {
      const res = await fetch(
        `${server.url}/admin/jobs/${job.id}?out_offset=${outOffset}&err_offset=${errOffset}`,
        { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) },
      );
      if (!res.ok) {
        err(`matchcast ${kind}: lost job ${job.id} (HTTP ${res.status})\n`);
        return 1;
      }
      job = (await res.json()) as JobView;
    } catch (e) {
      err(`matchcast ${kind}: the server stopped answering: ${(e as Error).message}\n`);
      return 1;
    }
  }
}
