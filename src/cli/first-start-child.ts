import { childExit, signalExitCode, spawnBatch } from './batch-process.js';

/** Set in the environment of the `start` child that does the first start's work, then exits. */
const FIRST_START_CHILD_ENV = 'MATCHCAST_FIRST_START_CHILD';

/** True in the child process of {@link runFirstStartChild}. */
export function isFirstStartChild(): boolean {
  return process.env[FIRST_START_CHILD_ENV] === '1';
}

// `matchcast start <argv>` as a child that ingests and bootstraps, then exits: the memory that work
// allocates dies with it instead of staying in the serving process. Signals are passed on.
export async function runFirstStartChild(argv: string[]): Promise<number> {
  const child = spawnBatch(
    ['start', ...argv],
    { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
    { [FIRST_START_CHILD_ENV]: '1' },
  );
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    const { code, signal } = await childExit(child);
    return signal === null ? (code ?? 1) : signalExitCode(signal);
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}

/** In the child: exit as soon as the parent is gone, without keeping the event loop alive for it. */
export function followParent(): void {
  process.channel?.unref();
  process.once('disconnect', () => process.exit(1));
}
