import { setPriority } from 'node:os';

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
