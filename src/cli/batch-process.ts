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
export const BATCH_NODE_FLAGS: readonly string[] = ['--heap-growing-percent=25'];

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

/** The environment of a pipeline child: `env` with the shipped allocator settings unless it sets its own. */
export function batchEnv(env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...env, GLIBC_TUNABLES: env.GLIBC_TUNABLES ?? MALLOC_TUNABLES, ...extra };
}
