/**
 * Whether a process with this pid exists on this host (signal 0 probes without signalling; EPERM
 * means it exists under another user). Used to tell a live lock or run owner from a dead one.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
