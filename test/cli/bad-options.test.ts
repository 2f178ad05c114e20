// Every command answers a bad option or a bad option value with one line naming it,
// its usage and exit code 2 — no stack trace, nothing started. Runs the real binary (bin/matchcast.js).
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { killAll, runCli } from '../helpers/cluster.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mc-cli-bad-'));
});
after(async () => {
  await killAll();
  await rm(dir, { recursive: true, force: true });
});

const CASES: Array<{ args: string[]; names: RegExp }> = [
  { args: ['start', '--bogus'], names: /--bogus/ },
  { args: ['start', '--port', 'abc'], names: /--port.*abc/ },
  { args: ['start', '--port', '70000'], names: /--port.*70000/ },
  { args: ['start', '--data', '/nowhere', '--as-of', 'yesterday-ish'], names: /--as-of/ },
  // --speed alone names --speed (it used to say "--as-of needs --data").
  { args: ['start', '--speed', '3'], names: /--speed goes with --as-of/ },
  { args: ['serve', '--bogus'], names: /--bogus/ },
  { args: ['worker', '--concurrency', '0'], names: /--concurrency/ },
  { args: ['ingest', '--synthetic', '--seed', 'x'], names: /--seed/ },
  { args: ['pipeline', 'run', '--as-of', 'garbage'], names: /--as-of/ },
  { args: ['pipeline', 'backtest', '--to', '2023-13-45'], names: /--to.*2023-13-45/ },
  { args: ['pipeline', 'backtest', '--refit-days', '0'], names: /--refit-days/ },
  { args: ['ingest', '--synthetic', '--now', 'soon'], names: /--now.*soon/ },
  { args: ['ingest', '--synthetic', '--regions', '-1'], names: /--regions/ },
  { args: ['runs', 'list', '--bogus'], names: /--bogus/ },
  // Negative and malformed numbers name the option and its range (not "argument is ambiguous").
  { args: ['worker', '--concurrency', '-3'], names: /--concurrency expects an integer 1\.\.256, got "-3"/ },
  { args: ['worker', '-c', '-3'], names: /--concurrency expects an integer 1\.\.256/ },
  { args: ['serve', '--port', '-1'], names: /--port expects an integer 0\.\.65535, got "-1"/ },
  {
    args: ['start', '--data', '/nowhere', '--as-of', '2023-01-01', '--speed', '1e308'],
    names: /--speed expects a number 0\.\.1000000/,
  },
  {
    args: ['start', '--data', '/nowhere', '--as-of', '2023-01-01', '--speed', '-2'],
    names: /--speed expects a number/,
  },
  {
    args: ['pipeline', 'backtest', '--refit-days', '-3'],
    names: /--refit-days expects an integer 1\.\.3650, got "-3"/,
  },
  {
    args: ['pipeline', 'train', '--validation-days', '99999'],
    names: /--validation-days expects an integer 1\.\.3650/,
  },
  { args: ['pipeline', 'features', '--refit-days', '30'], names: /--refit-days is an option of/ },
  { args: ['pipeline', 'run', '--as-of', '99999-01-01'], names: /--as-of expects .*year 1900–2100/ },
  { args: ['ingest', '--synthetic', '--teams', '99'], names: /--teams expects an integer 2\.\.40, got "99"/ },
  { args: ['sources', 'add', 'e0', '/tmp/E0.csv', '--every', 'soon'], names: /--every.*soon/ },
  { args: ['sources', 'add', 'e0', '/tmp/E0.csv', '--format', 'xml'], names: /--format.*xml/ },
  { args: ['teams', 'add', 'Ipswich'], names: /--region/ },
];

test('bad options and option values: one line, the usage, exit 2, nothing started', async () => {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATA_DIR: path.join(dir, 'data'),
    LOG_LEVEL: 'error',
  };
  // Three at a time: each is a cold node start on a 2-core machine.
  const results: Array<{ args: string[]; names: RegExp; code: number | null; out: string }> = [];
  for (let i = 0; i < CASES.length; i += 3) {
    const batch = CASES.slice(i, i + 3);
    results.push(
      ...(await Promise.all(batch.map(async (c) => ({ ...c, ...(await runCli(c.args, env, 60_000)) })))),
    );
  }
  for (const r of results) {
    const label = `matchcast ${r.args.join(' ')}:\n${r.out}`;
    assert.equal(r.code, 2, label);
    assert.match(r.out, r.names, label);
    assert.match(r.out, /Usage/, label);
    assert.doesNotMatch(r.out, /\n\s+at .+:\d+:\d+/, `stack trace in ${label}`);
  }
  // Nothing was started: no database, no run, no predictions under DATA_DIR.
  const left = await readdir(path.join(dir, 'data')).catch(() => [] as string[]);
  assert.deepEqual(
    left.filter((f) => !['api-key', 'admin-key', 'url-signing.secret'].includes(f)),
    [],
    `DATA_DIR holds ${left.join(', ')}`,
  );
});
