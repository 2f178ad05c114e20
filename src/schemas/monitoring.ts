import { type Static, Type } from 'typebox';
import { Literals, Nullable, Strict } from './common.js';
import { EXAMPLE_LIVE } from './predictions.js';

/** Path parameter of `GET /monitoring/task_status/{task_id}`. */
export const TaskIdParams = Strict({
  task_id: Type.String({ minLength: 1, maxLength: 200, description: 'a task id (any string)' }),
});

/** Spec §2.8. */
export const TaskStatus = Type.Object({
  task_id: Type.String(),
  status: Literals(['pending', 'STARTED', 'SUCCESS', 'FAILURE'], {
    description: '`pending` (queued, or unknown id), `STARTED`, `SUCCESS`, `FAILURE`',
  }),
  result: Type.Unknown({
    description: 'null while pending or started; the task result on SUCCESS; `{error, code}` on FAILURE',
  }),
  state: Literals(['waiting', 'active', 'completed', 'failed', 'unknown'], {
    description:
      'Additive to `status`: `waiting` (queued; status `pending`), `active`, `completed`, `failed`, or `unknown` ' +
      '(status `pending` too, but no such task: never submitted, or its result expired after RESULT_TTL — stop polling)',
  }),
});
export type TaskStatus = Static<typeof TaskStatus>;

/** `GET /monitoring/celery/queues`. */
export const QueueStats = Type.Object({
  queue: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description: 'tasks by state: waiting, active, delayed, prioritized, completed, failed',
  }),
  workers: Type.Array(
    Type.Object({
      worker: Type.String(),
      active: Type.Integer({ description: 'tasks running on the worker now' }),
      scheduled: Type.Integer({ description: 'tasks with an ETA held by the worker (always 0)' }),
      reserved: Type.Integer({
        description: 'tasks fetched but not started (always 0: a job is fetched for a free slot)',
      }),
    }),
  ),
});
export type QueueStats = Static<typeof QueueStats>;

/** One entry of `GET /monitoring/celery/workers`. */
export const WorkerInfo = Type.Object({
  worker: Type.String(),
  queues: Type.Array(Type.String()),
  ping: Type.Object({
    ok: Type.Boolean({
      description: 'the worker answers: connected to the broker (BullMQ), or a ping (embedded)',
    }),
    latency_ms: Nullable(
      Type.Number(),
      'ping round trip, ms (embedded worker threads); null when not measured (BullMQ) or not answered',
    ),
  }),
  pid: Type.Optional(Type.Integer()),
  hostname: Type.Optional(Type.String()),
  concurrency: Type.Optional(Type.Integer()),
  active: Type.Optional(Type.Integer()),
  processed: Type.Optional(Type.Integer()),
  failed: Type.Optional(Type.Integer()),
  started_at: Type.Optional(Type.String()),
  models: Type.Optional(
    Type.Record(Type.String(), Type.Object({ version: Type.String(), run_id: Type.String() }), {
      description: 'models the worker has loaded, by stage',
    }),
  ),
});
export type WorkerInfo = Static<typeof WorkerInfo>;

/** Spec §2.10: the figures of `reports/drift_latest.json`; only `drift_score` is always present. */
export const DriftSummary = Type.Object(
  {
    drift_score: Nullable(
      Type.Number(),
      'share of drifted features in the latest drift report; null when no report exists',
    ),
    n_features: Type.Optional(Type.Integer({ description: 'features tested' })),
    n_drifted: Type.Optional(Type.Integer()),
    n_skipped: Type.Optional(Type.Integer({ description: 'features with too few values to test' })),
    drifted_features: Type.Optional(Type.Array(Type.String())),
    feature_scores: Type.Optional(Type.Record(Type.String(), Nullable(Type.Number()))),
    window: Type.Optional(
      Type.Object(
        { start: Type.String(), end: Type.String(), days: Type.Number(), includes_future: Type.Boolean() },
        { additionalProperties: true },
      ),
    ),
    generated_at: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
    as_of: Type.Optional(Type.String()),
    report_filename: Type.Optional(Type.String()),
    data_quality_filename: Type.Optional(Type.String()),
    no_score_reason: Type.Optional(
      Literals(['no_run', 'empty_window', 'too_few_values'], {
        description:
          'additive, only when drift_score is null: no drift report published yet, no matches in the window, or too few values to test any feature',
      }),
    ),
    no_score_detail: Type.Optional(
      Type.String({ description: 'the same reason in a sentence, with the window' }),
    ),
  },
  { additionalProperties: true },
);
export type DriftSummary = Static<typeof DriftSummary>;

/** Spec §2.11. */
export const ReportEntry = Type.Object({
  filename: Type.String({ description: 'name of an HTML drift or data-quality report' }),
  url: Type.String({
    description: 'presigned object-store URL (or HMAC-signed API URL), valid REPORT_URL_TTL s',
  }),
});
export type ReportEntry = Static<typeof ReportEntry>;

/** Path parameter of `GET /monitoring/reports/{filename}`. */
export const FilenameParams = Strict({
  filename: Type.String({ description: 'a filename that GET /monitoring/reports lists' }),
});

// A finished live prediction is the live answer without `cached`.
const { cached: _cached, ...LIVE_RESULT } = EXAMPLE_LIVE;

export const EXAMPLE_TASK_STATUS: TaskStatus = {
  task_id: '5b0e7c1d-2f44-4f3e-8f1a-0c9d7e6b5a42',
  status: 'SUCCESS',
  state: 'completed',
  result: LIVE_RESULT,
};

export const EXAMPLE_QUEUE_STATS: QueueStats = {
  queue: 'ml',
  counts: { waiting: 0, active: 1, delayed: 0, prioritized: 0, completed: 5120, failed: 2 },
  workers: [{ worker: 'worker-1@api-7d9f', active: 1, scheduled: 0, reserved: 0 }],
};

export const EXAMPLE_WORKER: WorkerInfo = {
  worker: 'worker-7d9f:4121:a1b2c3',
  queues: ['ml'],
  ping: { ok: true, latency_ms: null },
  pid: 4121,
  hostname: 'worker-7d9f',
  active: 1,
  models: { champion: { version: '3', run_id: 'run-20240510-0007' } },
};

export const EXAMPLE_DRIFT: DriftSummary = {
  drift_score: 0.125,
  n_features: 24,
  n_drifted: 3,
  n_skipped: 0,
  drifted_features: ['elo_diff', 'mr_sup', 'home_form_5'],
  generated_at: '2024-05-10T03:20:00.000Z',
  report_filename: 'drift_report_20240510T032000Z.html',
};

export const EXAMPLE_REPORT: ReportEntry = {
  filename: 'drift_report_20240510T032000Z.html',
  url: 'https://s3.example.com/reports/drift_report_20240510T032000Z.html?X-Amz-Expires=3600&X-Amz-Signature=…',
};
