import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signalGroup, spawnGroup } from '../../helpers/process-group.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** Skip reason while the composition root (src/runtime.ts) does not exist yet, else false. */
export const skipWithoutRuntime: string | false = existsSync(path.join(ROOT, 'src', 'runtime.ts'))
  ? false
  : 'the embedded server (src/runtime.ts) is not assembled yet';

export interface EmbeddedServer {
  url: string;
  key: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `node bin/matchcast.js start` (the whole service in one process: PGlite, folder store,
 * in-process queue) in a temp DATA_DIR with a fixed API key, and waits until it is ready. The first
 * start ingests a synthetic league and runs the pipeline, so this takes a while.
 */
export async function startEmbeddedServer(timeoutMs = 240_000): Promise<EmbeddedServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-ui-e2e-'));
  const key = 'ui-e2e-key-0123456789abcdef';
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  // Embedded means embedded: CI exports REDIS_URL / DATABASE_URL for the adapter tests, and a shared
  // database or queue here would couple this test to theirs.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'CACHE_URL',
    'S3_ENDPOINT',
    'S3_BUCKET_PREFIX',
    'MONITORING_REQUIRE_KEY',
  ]) {
    delete env[name];
  }
  const child: ChildProcess = spawnGroup(
    process.execPath,
    [path.join(ROOT, 'bin', 'matchcast.js'), 'start'],
    {
      cwd: ROOT,
      env: {
        ...env,
        DATA_DIR: dataDir,
        API_KEY: key,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: url,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (b) => {
    out += b;
  });
  child.stderr?.on('data', (b) => {
    out += b;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, 'SIGTERM');
      const t = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  let dead = false;
  exited.then(() => {
    dead = true;
  });
  while (Date.now() < deadline && !dead) {
    try {
      // Ready, not only listening: the published run is loaded, so the UI's first calls find data.
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return { url, key, dataDir, output: () => out, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(
    `matchcast start did not become healthy (${dead ? 'exited' : 'timed out'}):\n${out.slice(-4000)}`,
  );
}
