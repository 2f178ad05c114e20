// Processes a test starts, each in a process group of its own: a signal reaches whatever it started in
// turn, and a group is killed whole when its leader exits or this test process dies first.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

const groups = new Set<ChildProcess>();

function killGroupsNow(): void {
  for (const child of groups) signalGroup(child, 'SIGKILL');
}
process.once('exit', killGroupsNow);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    killGroupsNow();
    process.exit(128 + (sig === 'SIGTERM' ? 15 : 2));
  });
}

/**
 * Spawns `cmd` as the leader of a new process group. When the leader exits, anything of its group still
 * running (a child it left behind) is killed.
 */
export function spawnGroup(cmd: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(cmd, args, { ...options, detached: true });
  groups.add(child);
  child.once('exit', () => {
    signalGroup(child, 'SIGKILL');
    groups.delete(child);
  });
  return child;
}

/** Sends `signal` to `child`'s process group (to `child` alone when it has none). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
