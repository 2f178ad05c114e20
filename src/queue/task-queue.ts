/** Task names on the `ml` queue (spec §1, §4.8, §4.9). */
export type TaskName = 'predict_match' | 'model_info';

/** Status values reported by `/monitoring/task_status` (spec §2.8, §3.2). */
export type TaskStatusValue = 'pending' | 'STARTED' | 'SUCCESS' | 'FAILURE';

export interface TaskStatus {
  task_id: string;
  status: TaskStatusValue;
  /** Null while pending or started; the task's return value on SUCCESS; `{error, code}` on FAILURE. */
  result: unknown;
}

export interface PredictMatchPayload {
  match_id: number;
  stage: 'champion' | 'challenger';
  /**
   * The run id the caller resolved for `stage` (optional). A worker whose loaded model differs
   * re-resolves the alias before predicting, so a fresh promotion is served at once.
   */
  run_id?: string;
  /** Set by the BullMQ adapter: the pub/sub channel the worker publishes the result to. */
  reply_to?: string;
}

export interface ModelInfoPayload {
  stage: 'champion' | 'challenger';
  /** Set by the BullMQ adapter: the pub/sub channel the worker publishes the result to. */
  reply_to?: string;
}

/** Per-worker task counts of `/monitoring/celery/queues`. */
export interface WorkerTaskCounts {
  worker: string;
  active: number;
  scheduled: number;
  reserved: number;
}

/** One worker of `/monitoring/celery/workers`. */
export interface WorkerInfo {
  worker: string;
  queues: string[];
  ping: { ok: boolean; latency_ms: number | null };
  /** Optional details a worker publishes about itself. */
  pid?: number;
  hostname?: string;
  concurrency?: number;
  active?: number;
  processed?: number;
  failed?: number;
  started_at?: string;
  /** Loaded models per stage. */
  models?: Record<string, { version: string; run_id: string }>;
}

/**
 * The task queue port. `submit` fails fast with MC_ERR_BROKER_UNAVAILABLE when the broker cannot be
 * reached (never a long hang); `wait` rejects with MC_ERR_TASK_TIMEOUT after `timeoutMs`, with the
 * worker's typed error (e.g. MC_ERR_MATCH_NOT_FOUND) or MC_ERR_TASK_FAILED when the task failed.
 */
export interface TaskQueue {
  readonly kind: 'bullmq' | 'in-process';
  submit(name: TaskName, payload: PredictMatchPayload | ModelInfoPayload): Promise<string>;
  wait<T = unknown>(taskId: string, timeoutMs: number): Promise<T>;
  status(taskId: string): Promise<TaskStatus>;
  queueStats(): Promise<{ queue: string; counts: Record<string, number>; workers: WorkerTaskCounts[] }>;
  workers(): Promise<WorkerInfo[]>;
  /** True when the broker answers within `timeoutMs`; never throws. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}
