import { fileURLToPath } from 'node:url';

/** The command-line entry point that child processes run. */
export const CLI = fileURLToPath(new URL('../../bin/matchcast.js', import.meta.url));

/**
 * Node flags of the child processes that run the pipeline. By default V8 lets the heap grow to about
 * 2.5× its live set before a full collection; at 1.25× a run over 131k matches peaks at 1.2 GB RSS
 * instead of 2.2 GB, in the same time (docs/benchmarks.md).
 */
export const BATCH_NODE_FLAGS: readonly string[] = ['--heap-growing-percent=25'];
