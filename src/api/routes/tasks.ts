import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';

const ErrorBody = Type.Object({ detail: Type.Unknown(), code: Type.Optional(Type.String()) });

/** Spec §2.8. */
export const TaskStatusBody = Type.Object({
  task_id: Type.String(),
  status: Type.Union(
    [Type.Literal('pending'), Type.Literal('STARTED'), Type.Literal('SUCCESS'), Type.Literal('FAILURE')],
    {
      description: '`pending` (queued, or unknown id), `STARTED`, `SUCCESS`, `FAILURE`',
    },
  ),
  result: Type.Unknown({
    description: 'null while pending or started; the task result on SUCCESS; `{error, code}` on FAILURE',
  }),
});

export const QueueStatsBody = Type.Object({
  queue: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description: 'Tasks by state: waiting, active, delayed, prioritized, completed, failed',
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

export const WorkersBody = Type.Array(
  Type.Object({
    worker: Type.String(),
    queues: Type.Array(Type.String()),
    ping: Type.Object({
      ok: Type.Boolean(),
      latency_ms: Type.Union([Type.Number(), Type.Null()], { description: 'ping round trip, ms' }),
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
  }),
);

/** Task-queue monitoring (spec §4.11): task status, queue counts, workers with ping. */
export async function tasksRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get<{ Params: { task_id: string } }>(
    '/monitoring/task_status/:task_id',
    {
      schema: {
        tags: ['monitoring'],
        summary: 'Status and result of a task (any task id, including a live prediction)',
        params: Type.Object({ task_id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: TaskStatusBody, 503: ErrorBody },
      },
    },
    async (request) => ctx.queue.status(request.params.task_id),
  );

  app.get(
    '/monitoring/celery/queues',
    {
      schema: {
        tags: ['monitoring'],
        summary: 'Task counts of the ml queue, and active/scheduled/reserved per worker',
        response: { 200: QueueStatsBody, 503: ErrorBody },
      },
    },
    async () => ctx.queue.queueStats(),
  );

  app.get(
    '/monitoring/celery/workers',
    {
      schema: {
        tags: ['monitoring'],
        summary: 'Connected workers: queues, ping with latency, load and loaded models',
        response: { 200: WorkersBody, 503: ErrorBody },
      },
    },
    async () => ctx.queue.workers(),
  );
}
