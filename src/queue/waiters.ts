import { MatchcastError } from '../domain/index.js';
import { taskFailureError } from './task-errors.js';
import type { OutcomeListener, TaskName, TaskOutcome } from './task-queue.js';

interface Tracked {
  at: number;
  name: TaskName | undefined;
  /** Keep an outcome nobody waits for yet (a sync caller about to `wait`); false for async tasks. */
  keep: boolean;
  ttlMs: number;
}

/** Settles one `wait`: with its task's outcome, or with an error of its own (timeout, queue closed). */
type Waiter = (outcome: TaskOutcome | Error) => void;

/**
 * Callers waiting for task results, fed by one shared listener (none per call, so nothing leaks); an outcome
 * arriving before its `wait` is kept briefly, so a fast worker cannot beat `wait`.
 */
export class TaskWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly submitted = new Map<string, Tracked>();
  private readonly listeners = new Set<OutcomeListener>();
  private readonly early = new Map<string, { outcome: TaskOutcome; at: number }>();
  private readonly sweeper: NodeJS.Timeout;

  /** @param keepMs how long an unclaimed outcome or a submission mark is kept. */
  constructor(private readonly keepMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(keepMs, 10_000)).unref();
  }

  /**
   * Marks a task of this process: its outcome reaches the listeners once and, when `awaited` (default), is
   * kept until claimed by `wait`. An async task is tracked for an hour, so a late result is still observed.
   */
  track(taskId: string, name?: TaskName, options: { awaited?: boolean } = {}): void {
    const keep = options.awaited !== false;
    this.submitted.set(taskId, { at: Date.now(), name, keep, ttlMs: keep ? this.keepMs : 3_600_000 });
  }

  /** Registers a listener of every outcome of a tracked task; returns its removal. */
  onOutcome(listener: OutcomeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tasks tracked now (for leak tests and the memory budget). */
  get trackedCount(): number {
    return this.submitted.size + this.early.size;
  }

  settle(taskId: string, outcome: TaskOutcome): void {
    const tracked = this.submitted.get(taskId);
    // Once per task: a reply and a poll may both report the same outcome.
    this.submitted.delete(taskId);
    if (tracked?.name) {
      for (const listener of this.listeners) {
        try {
          listener(tracked.name, outcome);
        } catch {
          // a listener (metrics) must never break result delivery
        }
      }
    }
    const set = this.waiting.get(taskId);
    if (set) for (const waiter of set) waiter(outcome);
    else if (tracked?.keep) this.early.set(taskId, { outcome, at: Date.now() });
  }

  /** Waits at most `timeoutMs`; `poll`, every `pollMs`, may find an outcome missed during a reconnect. */
  wait<T>(
    taskId: string,
    timeoutMs: number,
    poll?: () => Promise<TaskOutcome | undefined>,
    pollMs = 1000,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deliver = (outcome: TaskOutcome | Error) => {
        if (outcome instanceof Error) reject(outcome);
        else if (outcome.ok) resolve(outcome.value as T);
        else reject(taskFailureError(outcome.failure));
      };
      const early = this.early.get(taskId);
      if (early) {
        this.early.delete(taskId);
        return deliver(early.outcome);
      }
      let pollTimer: NodeJS.Timeout | undefined;
      const waiter: Waiter = (outcome) => {
        clearTimeout(timer);
        clearTimeout(pollTimer);
        const set = this.waiting.get(taskId);
        set?.delete(waiter);
        if (set?.size === 0) this.waiting.delete(taskId);
        deliver(outcome);
      };
      const timeout = `No result for task ${taskId} within ${timeoutMs} ms`;
      const timer = setTimeout(() => waiter(new MatchcastError('MC_ERR_TASK_TIMEOUT', timeout)), timeoutMs);
      this.waiting.set(taskId, (this.waiting.get(taskId) ?? new Set()).add(waiter));
      if (poll) {
        const tick = async (): Promise<void> => {
          const outcome = await poll().catch(() => undefined);
          if (!this.waiting.get(taskId)?.has(waiter)) return;
          if (outcome) this.settle(taskId, outcome);
          else pollTimer = setTimeout(tick, pollMs);
        };
        // A task this process did not submit may have finished already: look once at once.
        pollTimer = setTimeout(tick, this.submitted.has(taskId) ? pollMs : 0);
      }
    });
  }

  /** Number of callers waiting (for leak tests). */
  get size(): number {
    return [...this.waiting.values()].reduce((n, set) => n + set.size, 0);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, t] of this.submitted) if (t.at + t.ttlMs < now) this.submitted.delete(id);
    for (const [id, e] of this.early) if (e.at < now - this.keepMs) this.early.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const [id, set] of this.waiting) {
      const closed = new MatchcastError('MC_ERR_BROKER_UNAVAILABLE', `Queue closed while waiting for ${id}`);
      for (const waiter of set) waiter(closed);
    }
    this.listeners.clear();
  }
}
