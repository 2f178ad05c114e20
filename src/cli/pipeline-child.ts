import type { Config } from '../config.js';
import { openDatabase } from '../db/index.js';
import { markAbandonedRuns } from '../runs/index.js';
import { childExit, signalExitCode, spawnBatch } from './batch-process.js';

/** Set in the child's environment: there `pipeline run` runs the pipeline itself. */
export const PIPELINE_CHILD_ENV = 'MATCHCAST_PIPELINE_CHILD';

// A `pipeline run` in a child that a signal stops at once (training blocks the event loop for seconds,
// this process would not see it in time); its run and versions are then marked failed here.
export async function superviseRun(
  argv: string[],
  config: Config,
  err: (text: string) => void,
): Promise<number> {
  const child = spawnBatch(argv, { stdio: 'inherit' }, { [PIPELINE_CHILD_ENV]: '1' });
  let stopping: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      child.kill('SIGKILL');
      return;
    }
    stopping = signal;
    err(
      `matchcast pipeline run: ${signal}: shutting down (the run stops, is marked failed, publishes nothing)\n`,
    );
    child.kill(signal);
    // The child has no handler and dies at once; this covers a child stopped (SIGSTOP) or wedged.
    setTimeout(() => child.kill('SIGKILL'), Math.max(1000, config.shutdownTimeoutMs / 2)).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const exit = await childExit(child);
    const killedBy = stopping ?? exit.signal;
    if (killedBy === null) return exit.code ?? 1;
    // Killed (by our signal, or from outside: OOM, SIGKILL): its run is not left `running`.
    await markStopped(config, err);
    return signalExitCode(killedBy);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function markStopped(config: Config, err: (text: string) => void): Promise<void> {
  try {
    const db = await openDatabase(config);
    try {
      const marked = await markAbandonedRuns(db);
      for (const id of marked) err(`matchcast pipeline run: run ${id} marked failed (stopped by a signal)\n`);
    } finally {
      await db.close();
    }
  } catch (e) {
    err(
      `matchcast pipeline run: the stopped run could not be marked failed now (${e instanceof Error ? e.message : String(e)}); the next run marks it\n`,
    );
  }
}
