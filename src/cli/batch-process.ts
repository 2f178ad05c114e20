import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

/** The command-line entry point that child processes run. */
export const CLI = fileURLToPath(new URL('../../bin/matchcast.js', import.meta.url));

/**
 * Node flags of the child processes that do batch work (pipeline runs, the first start, `start`'s
 * polls and scheduled runs). By default V8 lets the heap grow to about
 * 2.5× its live set before a full collection; at 1.25× a run over 131k matches peaks at 1.2 GB RSS
 * instead of 2.2 GB, in the same time (docs/benchmarks.md).
 */
const BATCH_NODE_FLAGS: readonly string[] = ['--heap-growing-percent=25'];

/**
 * Gives a process started without them the heap policy of {@link BATCH_NODE_FLAGS} (V8 reads it at
 * each collection, so setting it at run time works): `matchcast ingest`, and the server, whose
 * threads build views, features and goals inputs in bursts (real data: 446 instead of 483–499 MB
 * during an ingest beside it, docs/benchmarks.md).
 */
export function useLeanHeap(): void {
  for (const flag of BATCH_NODE_FLAGS) v8.setFlagsFromString(flag);
}

/**
 * glibc's allocator settings of the shipped service (`npm start`, deploy/Dockerfile): memory freed by
 * parsers and buffers goes back to the system instead of staying in per-thread arenas (~80 MB less at
 * the peak of a 131k-match run).
 */
const MALLOC_TUNABLES =
  'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2';

/**
 * `matchcast <argv>` as a batch child: {@link BATCH_NODE_FLAGS}, and the shipped allocator settings
 * unless the environment sets its own; `env` is added to this process's environment.
 */
export function spawnBatch(argv: readonly string[], options: SpawnOptions, env: NodeJS.ProcessEnv = {}) {
  return spawn(process.execPath, [...BATCH_NODE_FLAGS, CLI, ...argv], {
    ...options,
    env: { ...process.env, GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? MALLOC_TUNABLES, ...env },
  });
}

/** How `child` ended; code 1 when it could not be started. */
export function childExit(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.once('error', () => resolve({ code: 1, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** The exit code of a process stopped by `signal`, as a shell reports it. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGKILL' ? 9 : 15);
}

/** Stops a child (SIGTERM, SIGKILL after `graceMs`) and resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Nice value of the server's background children: the serving process wins the CPU from them. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the scheduling priority of a background child (pipeline run, work child) and so of what it
 * starts. On a laptop's few cores a pipeline run would otherwise take CPU from the requests being
 * served; a system that refuses the change leaves the child as it is.
 */
export function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, BACKGROUND_NICE);
  } catch {
    // Not permitted here (a container's policy): same priority as the server.
  }
}
