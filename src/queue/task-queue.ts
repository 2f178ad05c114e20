import type { QueueStats, TaskStatus, WorkerInfo } from '../schemas/index.js';
import type { ModelInfoResult, PredictMarketsResult, PredictMatchResult, TaskFailure } from './task-types.js';

/**
 * Task names on the `ml` queue (spec §1, §4.8, §4.9); `predict_markets` answers the goals markets of
 * one match live (`GET /predict/markets/{match_id}?live=true`).
 */
export type TaskName = 'predict_match' | 'model_info' | 'predict_markets';

/**
 * Where a task is, additively to `status` (spec §2.8): `pending` covers both a queued task (`waiting`)
 * and an id the queue does not know — never submitted, or its result expired after `RESULT_TTL`.
 */
export type TaskState = TaskStatus['state'];

// The shapes `/monitoring/task_status` and `/monitoring/celery/workers` answer with.
export type { TaskStatus, WorkerInfo };

const STATUS_OF = {
  waiting: 'pending',
  unknown: 'pending',
  active: 'STARTED',
  completed: 'SUCCESS',
  failed: 'FAILURE',
} as const;

/** The task_status answer for a task in `state`; `result` is its value or failure once finished. */
export function taskStatus(taskId: string, state: TaskState, result: unknown = null): TaskStatus {
  return { task_id: taskId, status: STATUS_OF[state], result, state };
}

/** Options of {@link TaskQueue.submit}. */
export interface SubmitOptions {
  /**
   * Unix ms after which the task is not worth running (its synchronous caller has given up): a worker
   * that picks it up later fails it with MC_ERR_TASK_EXPIRED without running it. Default none.
   */
  expiresAt?: number;
  /**
   * Whether this process will `wait` for the result (sync) — the outcome is then kept briefly for a
   * late `wait` — or only observes it for metrics (async). Default `true`.
   */
  awaited?: boolean;
}

/** Called once per outcome of a task this process submitted (sync and async alike), e.g. for metrics. */
export type OutcomeListener = (name: TaskName, outcome: TaskOutcome) => void;

/** How a task ended. */
export type TaskOutcome = { ok: true; value: unknown } | { ok: false; failure: TaskFailure };

/** Size of the result store, for the memory-budget gauges. */
export interface ResultStoreUsage {
  /** Finished results kept (completed + failed). */
  results: number;
  /** Tasks waiting for a worker. */
  waiting: number;
  /** Memory of the broker (Redis `used_memory`), bytes; null for the in-process queue. */
  brokerMemoryBytes: number | null;
}

/** Fields every task payload may carry. */
interface PayloadBase {
  /** Set by the BullMQ adapter: the pub/sub channel the worker publishes the result to. */
  reply_to?: string;
  /** Unix ms after which a worker skips the task (MC_ERR_TASK_EXPIRED); see SubmitOptions.expiresAt. */
  expires_at?: number;
}

export interface PredictMatchPayload extends PayloadBase {
  match_id: number;
  stage: 'champion' | 'challenger';
  /**
   * The run id the caller resolved for `stage` (optional). A worker whose loaded model differs
   * re-resolves the alias before predicting, so a fresh promotion is served at once.
   */
  run_id?: string;
}

/** Payload of `predict_markets`: the goals champion's markets of one match. */
interface PredictMarketsPayload extends PayloadBase {
  match_id: number;
  /** The goals champion's run id the caller resolved (re-resolved by a worker holding another). */
  run_id?: string;
}

export interface ModelInfoPayload extends PayloadBase {
  stage: 'champion' | 'challenger';
}

/**
 * The task queue port. `submit` fails fast with MC_ERR_BROKER_UNAVAILABLE when the broker cannot be
 * reached (never a long hang); `wait` rejects with MC_ERR_TASK_TIMEOUT after `timeoutMs`, with the
 * worker's typed error (e.g. MC_ERR_MATCH_NOT_FOUND) or MC_ERR_TASK_FAILED when the task failed.
 */
export interface TaskQueue {
  readonly kind: 'bullmq' | 'in-process';
  /**
   * Queues a task. Fails fast with MC_ERR_BROKER_UNAVAILABLE (broker down) or MC_ERR_QUEUE_FULL (more
   * than `QUEUE_MAX_WAITING` tasks waiting; carries `retryAfterSeconds`).
   */
  submit(
    name: TaskName,
    payload: PredictMatchPayload | ModelInfoPayload | PredictMarketsPayload,
    options?: SubmitOptions,
  ): Promise<string>;
  /** Registers a listener of every outcome of this process's tasks; returns its removal. */
  onOutcome(listener: OutcomeListener): () => void;
  /** Result-store size for the memory budget; never hangs (bounded), may throw MC_ERR_BROKER_UNAVAILABLE. */
  usage(): Promise<ResultStoreUsage>;
  wait<T = unknown>(taskId: string, timeoutMs: number): Promise<T>;
  status(taskId: string): Promise<TaskStatus>;
  queueStats(): Promise<QueueStats>;
  workers(): Promise<WorkerInfo[]>;
  /** True when the broker answers within `timeoutMs`; never throws. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * What executes tasks inside a worker (built by the worker folder from its handlers); both queue
 * adapters drive one: the BullMQ consumer (bullmq/consumer.ts) and the worker threads of the
 * in-process queue (in-process/thread-runner.ts).
 */
export interface TaskRunner {
  run(name: TaskName, payload: unknown): Promise<PredictMatchResult | ModelInfoResult | PredictMarketsResult>;
  /** Throws a clear error when the registry cannot be read (a new worker must not start blind). */
  checkRegistry(): Promise<void>;
  /** Models loaded now, by stage. */
  loadedModels(): Record<string, { version: string; run_id: string }>;
}
