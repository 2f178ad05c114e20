#!/usr/bin/env node
// Runs every test file under test/ (or the ones given) with node's built-in runner and tsx.
// Node 20's runner does not expand globs, so the files are collected here.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (/\.test\.ts$/.test(name)) out.push(full);
  }
  return out;
}

// The longest files (real processes, clusters, first starts; ≥ 35 s each in CI) start first: with a
// fixed concurrency the run ends when its last file does, and a long file started late sets that
// end alone. Measured order, longest first; every other file follows alphabetically.
const LONG_FIRST = [
  'test/ops/hardening.test.ts',
  'test/ops/safe-runs.test.ts',
  'test/ops/first-start-resume.test.ts',
  'test/ops/worker-faults.test.ts',
  'test/web/ui-embedded.test.ts',
  'test/ops/graceful-shutdown.test.ts',
  'test/replay/replay-e2e.test.ts',
  'test/ops/rolling-restart.test.ts',
  'test/ops/dependency-faults.test.ts',
  'test/contract/soak-short.test.ts',
  'test/fuzz/routes.test.ts',
  'test/runs/safe-runs.test.ts',
  'test/ops/distributed-e2e.test.ts',
  'test/security/headers-browser.test.ts',
  'test/api/live-markets.test.ts',
];
const rank = (f) => {
  const i = LONG_FIRST.indexOf(f.split(path.sep).join('/'));
  return i === -1 ? LONG_FIRST.length : i;
};

const args = process.argv.slice(2);
const files = (args.length ? args : ['test'])
  .flatMap((a) => (statSync(a).isDirectory() ? collect(a) : [a]))
  .sort()
  .sort((a, b) => rank(a) - rank(b));
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
for (const v of ['REDIS_URL', 'DATABASE_URL']) {
  if (!process.env[v]) console.log(`# ${v} is not set: tests against the real service will be skipped`);
}
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
