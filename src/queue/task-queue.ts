import type { QueueStats, TaskStatus, WorkerInfo } from '../schemas/index.js';
import type { ModelInfoResult, PredictMarketsResult, PredictMatchResult, TaskFailure } from './task-types.js';

/** Task names on the `ml` queue (spec §1, §4.8, §4.9); `predict_markets` serves `?live=true` markets. */
export type TaskName = 'predict_match' | 'model_info' | 'predict_markets';

// The shapes `/monitoring/task_status` and `/monitoring/celery/workers` answer with.
export type { TaskStatus, WorkerInfo };

const STATUS_OF = {
  waiting: 'pending',
  unknown: 'pending',
  active: 'STARTED',
  completed: 'SUCCESS',
  failed: 'FAILURE',
} as const;

/**
 * The task_status answer; `state` adds to `status` (spec §2.8), whose `pending` covers both a queued task
 * and an id unknown (never submitted, or expired after RESULT_TTL). `result`: the value or failure.
 */
export function taskStatus(taskId: string, state: TaskStatus['state'], result: unknown = null): TaskStatus {
  return { task_id: taskId, status: STATUS_OF[state], result, state };
}

interface SubmitOptions {
  /** Unix ms after which its sync caller has given up: a worker fails it with MC_ERR_TASK_EXPIRED unrun. */
  expiresAt?: number;
  /** This process will `wait` (sync: the outcome is kept for a late `wait`); false: async. Default `true`. */
  awaited?: boolean;
}

/** Called once per outcome of a task this process submitted (sync and async alike), e.g. for metrics. */
export type OutcomeListener = (name: TaskName, outcome: TaskOutcome) => void;

export type TaskOutcome = { ok: true; value: unknown } | { ok: false; failure: TaskFailure };

/** Size of the result store, for the memory-budget gauges. */
export interface ResultStoreUsage {
  /** Finished results kept (completed + failed). */
  results: number;
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

/** Payload of `predict_markets` (the goals champion's markets of one match) and, with `stage`, `predict_match`. */
interface PredictMarketsPayload extends PayloadBase {
  match_id: number;
  /** The run id the caller resolved for the stage: a worker holding another re-resolves the alias first. */
  run_id?: string;
}

interface PredictMatchPayload extends PredictMarketsPayload {
  stage: 'champion' | 'challenger';
}

interface ModelInfoPayload extends PayloadBase {
  stage: 'champion' | 'challenger';
}

/** The task queue port; `wait` rejects with MC_ERR_TASK_TIMEOUT, the worker's error or MC_ERR_TASK_FAILED. */
export interface TaskQueue {
  readonly kind: 'bullmq' | 'in-process';
  /** Fails fast with MC_ERR_BROKER_UNAVAILABLE, or MC_ERR_QUEUE_FULL beyond `QUEUE_MAX_WAITING` waiting. */
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

/** Runs tasks in a worker (built by src/worker); driven by the BullMQ consumer and the in-process threads. */
export interface TaskRunner {
  run(name: TaskName, payload: unknown): Promise<PredictMatchResult | ModelInfoResult | PredictMarketsResult>;
  /** Throws a clear error when the registry cannot be read (a new worker must not start blind). */
  checkRegistry(): Promise<void>;
  /** Models loaded now, by stage. */
  loadedModels(): Record<string, { version: string; run_id: string }>;
}
