import { MatchcastError } from '../domain/index.js';
import { taskFailureError } from './task-errors.js';
import type { TaskFailure } from './task-types.js';

/** How a task ended. */
export type TaskOutcome = { ok: true; value: unknown } | { ok: false; failure: TaskFailure };

interface Waiter {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * Callers waiting for task results, keyed by task id, fed by one shared event listener (no listener
 * per call, so nothing leaks). Outcomes of tasks this process submitted that arrive before anyone
 * waits are kept briefly, so a fast worker cannot beat `wait`.
 */
export class TaskWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly submitted = new Map<string, number>();
  private readonly early = new Map<string, { outcome: TaskOutcome; at: number }>();
  private readonly sweeper: NodeJS.Timeout;

  /** @param keepMs how long an unclaimed outcome or a submission mark is kept. Default `60000`. */
  constructor(private readonly keepMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(keepMs, 10_000));
    this.sweeper.unref();
  }

  /** Marks a task as submitted by this process (its outcome is kept until claimed). */
  track(taskId: string): void {
    this.submitted.set(taskId, Date.now());
  }

  /** Whether this process submitted the task and is still tracking it. */
  isTracked(taskId: string): boolean {
    return this.submitted.has(taskId) || this.early.has(taskId);
  }

  settle(taskId: string, outcome: TaskOutcome): void {
    const set = this.waiting.get(taskId);
    if (set) {
      this.waiting.delete(taskId);
      this.submitted.delete(taskId);
      for (const w of set) {
        if (outcome.ok) w.resolve(outcome.value);
        else w.reject(taskFailureError(outcome.failure));
      }
      return;
    }
    if (this.submitted.delete(taskId)) this.early.set(taskId, { outcome, at: Date.now() });
  }

  /**
   * Waits for the outcome of `taskId` for at most `timeoutMs`; `poll` (optional) is called every
   * `pollMs` and may return an outcome found another way (events missed during a reconnect).
   */
  wait<T>(
    taskId: string,
    timeoutMs: number,
    poll?: () => Promise<TaskOutcome | undefined>,
    pollMs = 1000,
  ): Promise<T> {
    const early = this.early.get(taskId);
    if (early) {
      this.early.delete(taskId);
      return early.outcome.ok
        ? Promise.resolve(early.outcome.value as T)
        : Promise.reject(taskFailureError(early.outcome.failure));
    }
    return new Promise<T>((resolve, reject) => {
      let pollTimer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        clearTimeout(pollTimer);
        const set = this.waiting.get(taskId);
        set?.delete(waiter);
        if (set && set.size === 0) this.waiting.delete(taskId);
      };
      const waiter: Waiter = {
        resolve: (v) => {
          done();
          resolve(v as T);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        waiter.reject(
          new MatchcastError('MC_ERR_TASK_TIMEOUT', `No result for task ${taskId} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      let set = this.waiting.get(taskId);
      if (!set) {
        set = new Set();
        this.waiting.set(taskId, set);
      }
      set.add(waiter);
      if (poll) {
        const tick = async (): Promise<void> => {
          const outcome = await poll().catch(() => undefined);
          if (!this.waiting.get(taskId)?.has(waiter)) return;
          if (outcome) {
            this.settle(taskId, outcome);
            return;
          }
          pollTimer = setTimeout(tick, pollMs);
        };
        // A task this process did not submit may have finished already: look once at once.
        pollTimer = setTimeout(tick, this.submitted.has(taskId) ? pollMs : 0);
      }
    });
  }

  /** Number of callers waiting (for leak tests). */
  get size(): number {
    let n = 0;
    for (const s of this.waiting.values()) n += s.size;
    return n;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.keepMs;
    for (const [id, at] of this.submitted) if (at < cutoff) this.submitted.delete(id);
    for (const [id, e] of this.early) if (e.at < cutoff) this.early.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const [id, set] of this.waiting) {
      for (const w of set)
        w.reject(new MatchcastError('MC_ERR_BROKER_UNAVAILABLE', `Queue closed while waiting for ${id}`));
    }
    this.waiting.clear();
  }
}
