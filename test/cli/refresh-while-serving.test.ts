import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { serveEmbedded } from '../../src/cli/serve-embedded.js';
import { readLiveServer, SERVER_FILE } from '../../src/cli/server-file.js';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'refresh-while-serving-key-0123456789';

/** Runs `matchcast <argv>` as another process (as a user in another shell would), bounded. */
function cli(argv: string[], dataDir: string): Promise<{ code: number | null; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, API_KEY: KEY, LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'CACHE_URL', 'S3_ENDPOINT']) delete env[name];
  const child = spawnGroup(process.execPath, [path.join(ROOT, 'bin', 'matchcast.js'), ...argv], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b) => {
    out += b;
  });
  child.stderr?.on('data', (b) => {
    err += b;
  });
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

test('commands run beside `start` work on its data through its database socket', {
  timeout: 300_000,
}, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-refresh-'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    API_KEY: KEY,
    LOG_LEVEL: 'silent',
    VIEW_REFRESH_MS: '500',
  });
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
    const { url } = JSON.parse(
      await import('node:fs/promises').then((fs) => fs.readFile(path.join(dataDir, SERVER_FILE), 'utf8')),
    ) as { url: string };
    const missing = await fetch(`${url}/predict/predictions/`, { headers: { 'x-api-key': KEY } });
    assert.equal(missing.status, 503);

    // Nothing runs a command line over HTTP: no key and no address reaches one.
    const denied = await fetch(`${url}/admin/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ kind: 'ingest', argv: ['--synthetic'] }),
    });
    assert.equal(denied.status, 404);

    const ingest = await cli(
      ['ingest', '--synthetic', '--regions', '2', '--seasons', '3', '--seed', '7'],
      dataDir,
    );
    assert.equal(ingest.code, 0, ingest.err);
    assert.ok(
      (await new MatchesRepository(ctx.db).count()) > 0,
      'the server database holds the matches the other process ingested',
    );

    const boot = await cli(['bootstrap'], dataDir);
    assert.equal(boot.code, 0, boot.err);
    assert.match(boot.out, /champion: version \d+/);
    const champion = await ctx.registry.resolve('champion');
    assert.ok(champion, 'the champion signed off by the other process is a row the server reads');

    // The published run serves without a restart, at the server's next poll of the pointer.
    let served = 0;
    for (let i = 0; i < 40 && served !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      served = (await fetch(`${url}/predict/predictions/`, { headers: { 'x-api-key': KEY } })).status;
    }
    assert.equal(served, 200);

    const other = (await ctx.registry.listVersions()).find((v) => v.version !== champion.version);
    assert.ok(other, 'a challenger was registered');
    const moved = await cli(['registry', 'alias', 'set', 'candidate', other.version], dataDir);
    assert.equal(moved.code, 0, moved.err);
    assert.equal((await ctx.registry.aliases()).candidate, other.version, 'visible to the server at once');

    const bad = await cli(['pipeline', 'predict', '--run', 'nope'], dataDir);
    assert.notEqual(bad.code, 0, 'a failing command exits non-zero');
  } finally {
    stop();
    assert.equal(await serving, 0);
    assert.ok(!existsSync(path.join(dataDir, SERVER_FILE)), 'server.json removed at shutdown');
    await ctx.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
});
