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

const args = process.argv.slice(2);
const files = (args.length ? args : ['test'])
  .flatMap((a) => (statSync(a).isDirectory() ? collect(a) : [a]))
  .sort();
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
