// CLI commands run beside `matchcast start` work on the data it serves: `start` serves its embedded
// database on a socket, and `ingest`, `pipeline`, `registry` and `runs` started in another shell
// connect there like any PostgreSQL client. What they write (matches, aliases, a published run) is
// what the running server reads, without a restart.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { serveEmbedded } from '../../src/cli/serve-embedded.js';
import { readLiveServer, SERVER_FILE } from '../../src/cli/server-file.js';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { bootstrapFirstRun, silentProgress } from '../../src/pipeline/index.js';
import { readPublished } from '../../src/runs/index.js';
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out after ${ms} ms waiting for ${what}`);
}

test('ingest, registry and a re-prediction run beside `start`: the server serves what they wrote', {
  timeout: 600_000,
}, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-refresh-'));
  const config = {
    ...parseConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      API_KEY: KEY,
      LOG_LEVEL: 'silent',
      VIEW_REFRESH_MS: '200',
      ALIAS_REFRESH_MS: '200',
    }),
  };
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
    const { url } = JSON.parse(await readFile(path.join(dataDir, SERVER_FILE), 'utf8')) as { url: string };
    const get = async (p: string) => {
      const res = await fetch(`${url}${p}`, { headers: { 'x-api-key': KEY } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // Before any run: 503, and the text names the command that works now.
    const missing = await get('/predict/predictions/');
    assert.equal(missing.status, 503);
    assert.match(String(missing.body.detail), /npx matchcast pipeline run/);

    // `ingest` from another shell writes into the database the server holds open.
    const ingest = await cli(
      ['ingest', '--synthetic', '--regions', '2', '--seasons', '3', '--seed', '7'],
      dataDir,
    );
    assert.equal(ingest.code, 0, ingest.err);
    assert.match(ingest.out, /^ingest: /m);
    assert.ok(
      (await new MatchesRepository(ctx.db).count()) > 0,
      'the server database holds the matches the CLI ingested',
    );

    // A failing command beside the server exits non-zero with its own error.
    const bad = await cli(['pipeline', 'predict'], dataDir);
    assert.equal(bad.code, 1, `${bad.out}\n${bad.err}`);

    // The first run, as `start` does on a first start; the server serves it.
    await bootstrapFirstRun(
      {
        config,
        db: ctx.db,
        store: ctx.store,
        registry: ctx.registry,
        log: ctx.log,
        progress: silentProgress,
      },
      new Date(),
      { refitDays: 90 },
    );
    const first = (await readPublished(ctx.db))!;
    await waitFor(
      'the first run to be served',
      async () => (await get('/predict/predictions/')).status === 200,
    );

    // `registry alias rm` from another shell: the server's registry and its API see the move.
    assert.ok((await ctx.registry.aliases()).challenger, 'the first start signed off a challenger');
    const rm1 = await cli(['registry', 'alias', 'rm', 'challenger', '--actor', 'ops'], dataDir);
    assert.equal(rm1.code, 0, rm1.err);
    assert.equal((await ctx.registry.aliases()).challenger, undefined);
    assert.equal((await ctx.registry.history()).at(-1)?.actor, 'ops');
    await waitFor(
      'the API to stop serving the removed challenger',
      async () => (await get('/predict/model/info?stage=challenger')).status === 400,
    );
    const runs = await cli(['runs', 'list', '--json'], dataDir);
    assert.equal(runs.code, 0, runs.err);
    assert.equal((JSON.parse(runs.out) as { published: string }).published, first.run_id);

    // `ingest` of a new price for a fixture re-predicts it and publishes; the server serves the new row.
    const predictions = (await (
      await fetch(`${url}/predict/predictions/`, { headers: { 'x-api-key': KEY } })
    ).json()) as Array<{ match_id: number; is_future: boolean; startTimeUtc: string }>;
    const now = new Date();
    const fixture = predictions.find((p) => p.is_future && Date.parse(p.startTimeUtc) > now.getTime());
    assert.ok(
      fixture,
      `a fixture to re-price: ${predictions.filter((p) => p.is_future).length} future rows of ${predictions.length}, last kick-off ${predictions
        .map((p) => p.startTimeUtc)
        .sort()
        .at(-1)}`,
    );
    // Whole seconds: the odds file keeps observation times to the second.
    const seen = new Date(Math.floor((now.getTime() - 60_000) / 1000) * 1000);
    const file = path.join(dataDir, 'odds-late.csv');
    await writeFile(
      file,
      `match_id,observed_at,kind,odd_home,odd_draw,odd_away,source\n${fixture.match_id},${seen.toISOString()},intermediate,1.3,5.5,10,feed\n`,
    );
    const late = await cli(['ingest', '--source', file, '--now', now.toISOString()], dataDir);
    assert.equal(late.code, 0, late.err);
    assert.match(late.out, /^predictions: 1 re-predicted, .*; run (\S+) published/m);
    const published = (await readPublished(ctx.db))!;
    assert.notEqual(published.run_id, first.run_id, 'the CLI published a new run');
    let last: unknown;
    await waitFor('the re-predicted row to be served', async () => {
      const r = await get(`/predict/precomputed/${fixture.match_id}`);
      last = r.body;
      return r.status === 200 && r.body.odds_observed_at === seen.toISOString();
    }).catch((err: Error) => {
      throw new Error(`${err.message}; last answer ${JSON.stringify(last)}; served run ${published.run_id}`);
    });
  } finally {
    stop();
    assert.equal(await serving, 0);
    assert.ok(!existsSync(path.join(dataDir, SERVER_FILE)), 'server.json removed at shutdown');
    await rm(dataDir, { recursive: true, force: true });
  }
});
