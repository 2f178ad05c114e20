import { ERROR_CATALOGUE, type ErrorCode, isMatchcastError, MatchcastError } from '../domain/index.js';
import type { TaskFailure } from './task-types.js';

/** Worker error codes that reach the caller as they are; anything else is MC_ERR_TASK_FAILED (spec §7). */
const PASS_THROUGH: ReadonlySet<string> = new Set<ErrorCode>([
  'MC_ERR_MATCH_NOT_FOUND',
  'MC_ERR_TASK_EXPIRED',
  // A model never scores features of another definition, nor answers in sample.
  'MC_ERR_FEATURES_MISMATCH',
  'MC_ERR_NOT_OUT_OF_SAMPLE',
  // An unassigned stage, or no goals model: what the API answers itself when it can read the registry.
  'MC_ERR_BAD_STAGE',
  'MC_ERR_GOALS_MODEL_UNAVAILABLE',
]);

export function queueFull(waiting: number, max: number): MatchcastError {
  return new MatchcastError(
    'MC_ERR_QUEUE_FULL',
    `${waiting} tasks are waiting (limit QUEUE_MAX_WAITING=${max}); retry later`,
    { retryAfterSeconds: 5 },
  );
}

/** The failure of a task skipped because its caller's deadline (`expires_at`, Unix ms) had passed. */
export function expiredFailure(expiresAt: number): TaskFailure {
  return {
    code: 'MC_ERR_TASK_EXPIRED',
    error: `Not run: its caller's deadline ${new Date(expiresAt).toISOString()} had passed when a worker took it`,
  };
}

/** The `expires_at` of a task payload when it has passed. */
export function isExpiredPayload(payload: unknown): number | undefined {
  const at = (payload as { expires_at?: unknown } | null | undefined)?.expires_at;
  return typeof at === 'number' && Date.now() > at ? at : undefined;
}

/** Errors a retry cannot fix: the worker marks them so the queue does not run the task again. */
export function isPermanentTaskError(err: unknown): boolean {
  return isMatchcastError(err) && PASS_THROUGH.has(err.code);
}

/** The `{error, code}` a failed task reports, from whatever the handler threw. */
export function toTaskFailure(err: unknown): TaskFailure {
  if (isMatchcastError(err)) {
    return { code: err.code, error: typeof err.detail === 'string' ? err.detail : err.message };
  }
  return { code: 'MC_ERR_TASK_FAILED', error: err instanceof Error ? err.message : String(err) };
}

/** Reads a failure kept as JSON in `failedReason`; a foreign reason (e.g. "job stalled…") stays readable. */
export function decodeTaskFailure(reason: string | undefined): TaskFailure {
  try {
    const { code, error } = JSON.parse(reason ?? '') as Partial<TaskFailure>;
    if (typeof code === 'string' && typeof error === 'string') return { code, error };
  } catch {
    // not ours: fall through
  }
  return { code: 'MC_ERR_TASK_FAILED', error: reason ?? 'task failed' };
}

/** The error `wait` rejects with for a failed task. */
export function taskFailureError(failure: TaskFailure): MatchcastError {
  if (PASS_THROUGH.has(failure.code) && failure.code in ERROR_CATALOGUE) {
    return new MatchcastError(failure.code as ErrorCode, failure.error);
  }
  return new MatchcastError('MC_ERR_TASK_FAILED', `The task failed on the worker: ${failure.error}`);
}
