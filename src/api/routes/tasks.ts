import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  EXAMPLE_QUEUE_STATS,
  EXAMPLE_TASK_STATUS,
  EXAMPLE_WORKER,
  errorResponses,
  QueueStats,
  respond,
  route,
  TaskIdParams,
  TaskStatus,
  WorkerInfo,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { startModelInfoSampler } from '../model-info-sampler.js';
import { watchResultStore } from '../queue-gauges.js';

/** Task-queue monitoring (spec §4.11): task status, queue counts, workers with ping. */
export async function tasksRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  // Gauges of the result store's memory budget and a model_info sample from the start (spec §4.2).
  const unwatch = watchResultStore(ctx.queue, ctx.config);
  const stopSampling = startModelInfoSampler(ctx);
  app.addHook('onClose', (_instance, done) => {
    unwatch();
    stopSampling();
    done();
  });

  app.get(
    '/monitoring/task_status/:task_id',
    route('monitoring', {
      summary: 'Status and result of a task (any task id, including a live prediction)',
      params: TaskIdParams,
      response: {
        200: respond(TaskStatus, 'The task and, once it finished, its result', [EXAMPLE_TASK_STATUS]),
        ...errorResponses('MC_ERR_BROKER_UNAVAILABLE'),
      },
    }),
    async (request) => ctx.queue.status(request.params.task_id),
  );

  app.get(
    '/monitoring/celery/queues',
    route('monitoring', {
      summary: 'Task counts of the ml queue, and active/scheduled/reserved per worker',
      response: {
        200: respond(QueueStats, 'Counts of the ml queue and per-worker load', [EXAMPLE_QUEUE_STATS]),
        ...errorResponses('MC_ERR_BROKER_UNAVAILABLE'),
      },
    }),
    async () => ctx.queue.queueStats(),
  );

  app.get(
    '/monitoring/celery/workers',
    route('monitoring', {
      summary: 'Connected workers: queues, ping with latency, load and loaded models',
      response: {
        200: respond(Type.Array(WorkerInfo), 'Every connected worker', [[EXAMPLE_WORKER]]),
        ...errorResponses('MC_ERR_BROKER_UNAVAILABLE'),
      },
    }),
    async () => ctx.queue.workers(),
  );
}
