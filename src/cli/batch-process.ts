import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

/** The command-line entry point that child processes run. */
export const CLI = fileURLToPath(new URL('../../bin/matchcast.js', import.meta.url));

// Batch children's heap grows 1.25× (not V8's 2.5×) before a full collection: a far lower peak in
// the same time (docs/benchmarks.md).
const BATCH_NODE_FLAGS: readonly string[] = ['--heap-growing-percent=25'];

// The batch heap policy for a process started without it (`ingest`, the server): V8 reads it at each
// collection, so setting it at run time works.
export function useLeanHeap(): void {
  for (const flag of BATCH_NODE_FLAGS) v8.setFlagsFromString(flag);
}

// glibc's allocator settings of the shipped service (`npm start`, deploy/Dockerfile): freed memory
// goes back to the system instead of staying in per-thread arenas.
const MALLOC_TUNABLES =
  'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2';

/** `matchcast <argv>` as a batch child: lean heap, the shipped allocator settings unless set, plus `env`. */
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

/** Lowers the priority of a background child (and what it starts), so it never takes CPU from requests. */
export function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, BACKGROUND_NICE);
  } catch {
    // Not permitted here (a container's policy): same priority as the server.
  }
}
