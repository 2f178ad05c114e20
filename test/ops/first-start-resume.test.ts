// Resumable first start on real processes: `matchcast start` killed (SIGKILL) midway through its first
// start — after the sign-off, before the predictions — finishes the bootstrap on the next start (health
// `healthy`, predictions and both stages served); its API key goes to stderr, never into a JSON log line on
// stdout. Every CLI command answers a bad option with one line and its usage, exit 2, no stack trace.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort, killAll, runCli, spawnProc, waitFor, waitForOutput } from '../helpers/cluster.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/matchcast.js');
const dataDir = mkdtempSync(path.join(tmpdir(), 'mc-first-start-'));
const baseEnv = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  NO_COLOR: '1',
};

after(async () => {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a first start killed after the sign-off resumes on the next start; the key stays out of the log stream', {
  timeout: 600_000,
}, async () => {
  const port = await freePort();
  const env = { ...baseEnv, PORT: String(port) };
  const first = spawnProc('start#1', process.execPath, [BIN, 'start'], env);
  // The sign-off and the challenger happen between promote and backtest: kill at the first backtest step.
  await waitForOutput(first, /"msg":"backtest\//, 300_000);
  first.child.kill('SIGKILL');
  process.kill(-(first.child.pid ?? 0), 'SIGKILL');
  await first.exited;
  const killedAt = Date.now();

  const second = spawnProc('start#2', process.execPath, [BIN, 'start'], env);
  await waitForOutput(second, /"msg":"listening"/, 300_000);
  const resumedMs = Date.now() - killedAt;
  assert.match(second.output(), /first start resumed and finished/);
  const key = readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const base = `http://127.0.0.1:${port}`;
  const call = async (url: string) => {
    const r = await fetch(`${base}${url}`, { headers: { 'x-api-key': key } });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const health = await waitFor(
    'healthy',
    async () => {
      const h = await call('/healthcheck/');
      return h.json.status === 'healthy' && h;
    },
    30_000,
    250,
  );
  assert.equal(health.json.predictions, true);
  assert.equal((await call('/readyz')).status, 200);
  const rows = await call('/predict/predictions/');
  assert.equal(rows.status, 200);
  assert.equal((await call('/predict/model/info?stage=challenger')).status, 200, 'the challenger exists');
  // The key: printed on stderr for the operator, never on stdout where the JSON log lines go. The
  // banner follows "listening" once the worker threads answer (seconds after a first start's child).
  await waitForOutput(second, /API key \(X-API-Key\)/, 30_000);
  assert.ok(second.output().includes(key), 'the banner shows the key');
  assert.ok(!second.stdout().includes(key), 'the key is not in the JSON log stream');
  for (const line of second.stdout().split('\n').filter(Boolean)) assert.doesNotThrow(() => JSON.parse(line));
  await second.stop('SIGTERM', 10_000);

  // A third start has nothing left to do.
  const third = spawnProc('start#3', process.execPath, [BIN, 'start'], env);
  await waitForOutput(third, /"msg":"listening"/, 120_000);
  assert.match(third.output(), /first start already finished|"msg":"listening"/);
  assert.doesNotMatch(third.output(), /running the pipeline/);
  await third.stop('SIGTERM', 10_000);
  console.log(
    `# first start killed at backtest; second start served healthy ${(resumedMs / 1000).toFixed(1)} s after the kill`,
  );
});

test('every command answers a bad option with one line and its usage, exit 2, no stack trace', async () => {
  for (const command of ['start', 'serve', 'worker', 'ingest', 'pipeline', 'registry']) {
    const r = await runCli(
      [command, '--no-such-option'],
      { ...baseEnv, DATA_DIR: path.join(dataDir, 'cli') },
      30_000,
    );
    assert.equal(r.code, 2, `${command}: exit ${r.code}\n${r.out}`);
    assert.doesNotMatch(r.out, /^\s+at /m, `${command}: no stack trace`);
    assert.match(r.out, /no-such-option/);
    assert.match(r.out, /Usage/);
    assert.equal(r.stdout, '', `${command}: nothing on stdout`);
  }
  const bad = await runCli(['worker', '--concurrency', 'lots'], baseEnv, 30_000);
  assert.equal(bad.code, 2);
  assert.match(bad.out, /--concurrency/);
});
