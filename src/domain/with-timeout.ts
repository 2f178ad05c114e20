/**
 * `promise`, rejected with `onTimeout()` when it has not settled within `ms`. The rejection waits for
 * the loop's poll phase: after a stall of the event loop (a loaded machine), an answer that arrived
 * in time is read before the bound that expired meanwhile. The timer does not hold the process open.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(onTimeout())), ms);
    timer.unref();
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}
