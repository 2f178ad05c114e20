import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ADMIN_KEY_FILE } from '../../src/cli/admin-key.js';
import { serveEmbedded } from '../../src/cli/serve-embedded.js';
import { readLiveServer, SERVER_FILE } from '../../src/cli/server-file.js';
import { embeddedAdminKey } from '../../src/cli/start.js';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'refresh-while-serving-key-0123456789';

/** Runs `matchcast <argv>` as another process (as a user in another shell would), bounded. */
function cli(argv: string[], dataDir: string): Promise<{ code: number | null; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, API_KEY: KEY, LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'CACHE_URL', 'S3_ENDPOINT']) delete env[name];
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'matchcast.js'), ...argv], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    err += b;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

test('ingest and pipeline run while `start` serves: the CLI hands its job to the server', {
  timeout: 300_000,
}, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-refresh-'));
  const config = {
    ...parseConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', API_KEY: KEY, LOG_LEVEL: 'silent' }),
  };
  // As `start` does: the admin key generated into DATA_DIR/admin-key, which the CLI children read.
  config.adminKey = await embeddedAdminKey(config);
  assert.equal((statSync(path.join(dataDir, ADMIN_KEY_FILE)).mode & 0o777).toString(8), '600');
  const ctx = await openRuntime(config, createLogger('silent'), { role: 'embedded' });
  let stop!: () => void;
  const until = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const serving = serveEmbedded(ctx, { until });
  try {
    const deadline = Date.now() + 20_000;
    while (!existsSync(path.join(dataDir, SERVER_FILE)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    // Same process: readLiveServer ignores its own pid (the CLI children see it).
    assert.equal(readLiveServer(dataDir), null);
    assert.ok(existsSync(path.join(dataDir, SERVER_FILE)), 'server.json written once listening');

    const { url } = JSON.parse(
      await import('node:fs/promises').then((fs) => fs.readFile(path.join(dataDir, SERVER_FILE), 'utf8')),
    ) as { url: string };
    // Before any run: 503, and the text names the command that works now.
    const missing = await fetch(`${url}/predict/predictions/`, { headers: { 'x-api-key': KEY } });
    assert.equal(missing.status, 503);
    assert.match(((await missing.json()) as { detail: string }).detail, /npx matchcast pipeline run/);

    // The admin route wants the admin key: none, or the API key from this loopback address, is refused.
    for (const headers of [{}, { 'x-api-key': KEY }] as Record<string, string>[]) {
      const denied = await fetch(`${url}/admin/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ kind: 'ingest', argv: ['--synthetic'] }),
      });
      assert.equal(denied.status, 401);
    }

    const ingest = await cli(
      ['ingest', '--synthetic', '--regions', '2', '--seasons', '3', '--seed', '7'],
      dataDir,
    );
    assert.equal(ingest.code, 0, ingest.err);
    assert.match(ingest.err, /running the job there/);
    assert.match(ingest.out, /^ingest: /m);
    assert.ok(
      (await new MatchesRepository(ctx.db).count()) > 0,
      'the server database holds the ingested matches',
    );

    const bad = await cli(['pipeline', 'predict'], dataDir);
    assert.equal(bad.code, 1, 'a failing job hands back its exit code');

    const run = await cli(['pipeline', 'features'], dataDir);
    assert.equal(run.code, 0, run.err);
    assert.match(run.err, /features\/build/, 'the stage progress of the job reaches the CLI');
  } finally {
    stop();
    assert.equal(await serving, 0);
    assert.ok(!existsSync(path.join(dataDir, SERVER_FILE)), 'server.json removed at shutdown');
    await rm(dataDir, { recursive: true, force: true });
  }
});
