import { type ChildProcess, fork, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';

// Runs in the thread as CommonJS: registers tsx for a TypeScript entry (a checkout run from source).
const BOOTSTRAP = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApi && workerData.entry.endsWith('.ts')) (await import(workerData.tsxApi)).register();
  await import(workerData.entry);
})().catch((err) => {
  parentPort.postMessage({ t: 'init-error', message: String(err && err.stack || err) });
  process.exit(1);
});
`;

function resolveTsx(): string | null {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return null;
  }
}

/** A worker thread running `entry` (`.ts` under tsx); a failed load posts `{ t: 'init-error' }`, exits 1. */
export function startModuleThread(
  entry: URL,
  data: Record<string, unknown>,
  resourceLimits?: ResourceLimits,
): Worker {
  return new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { ...data, entry: entry.href, tsxApi: resolveTsx() },
    execArgv: [],
    ...(resourceLimits ? { resourceLimits } : {}),
  });
}

/** A child process running the module `entry` with an IPC channel; by default it shares stdout and stderr. */
export function forkModule(
  entry: URL,
  options: { args?: string[]; serialization?: 'json' | 'advanced'; stdio?: StdioOptions } = {},
): ChildProcess {
  const file = fileURLToPath(entry);
  return fork(file, options.args ?? [], {
    execArgv: file.endsWith('.ts') ? ['--import', 'tsx'] : [],
    serialization: options.serialization ?? 'json',
    stdio: options.stdio ?? ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The module beside `from` named `name`, with `from`'s own extension (sources or compiled). */
export function siblingModule(from: string, name: string): URL {
  return new URL(`${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}
