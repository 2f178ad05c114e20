import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { MatchcastError } from '../../domain/index.js';
import {
  AdminJobParams,
  AdminJobQuery,
  AdminJobRequest,
  AdminJobView,
  EXAMPLE_ADMIN_JOB,
  errorResponses,
  respond,
} from '../../schemas/index.js';
import type { AdminJob, AdminJobKind, AppContext } from '../context.js';
import { checkAdminKey } from '../plugins/admin-key.js';

function view(job: AdminJob, outOffset: number, errOffset: number) {
  return {
    ...job,
    stdout: job.stdout.slice(outOffset),
    stderr: job.stderr.slice(errOffset),
    stdout_length: job.stdout.length,
    stderr_length: job.stderr.length,
  };
}

/**
 * `POST /admin/jobs`, `GET /admin/jobs/{id}`: registered when the process runs jobs (`matchcast
 * start`) and an admin key is set. The embedded database accepts one process, so `matchcast ingest`
 * and `matchcast pipeline` run here while `start` serves. Every call needs the admin key
 * (`checkAdminKey`); the API key and the client's address grant nothing.
 */
export async function adminRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const jobs = ctx.jobs;
  const adminKey = ctx.config.adminKey;
  if (!jobs || adminKey === undefined) return;
  // Before body parsing and validation, as the API key's check: a caller without the key learns nothing.
  const onRequest: onRequestHookHandler = (request, _reply, done) => {
    try {
      checkAdminKey(request, adminKey);
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  app.post<{ Body: { kind: AdminJobKind; argv: string[] } }>(
    '/admin/jobs',
    {
      onRequest,
      schema: {
        tags: ['admin'],
        summary: 'Hand an `ingest` or `pipeline` command to the running embedded server (admin key)',
        security: [{ AdminKeyAuth: [] }],
        body: AdminJobRequest,
        response: {
          202: respond(AdminJobView, 'The job is queued; poll GET /admin/jobs/{id}', [EXAMPLE_ADMIN_JOB]),
          ...errorResponses('MC_ERR_ADMIN_UNAUTHORIZED', 'MC_ERR_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const job = jobs.submit(request.body.kind, request.body.argv, 'cli');
      reply.code(202);
      return view(job, 0, 0);
    },
  );
  app.get<{ Params: { id: string }; Querystring: { out_offset?: number; err_offset?: number } }>(
    '/admin/jobs/:id',
    {
      onRequest,
      schema: {
        tags: ['admin'],
        summary: 'State and output of a handed-off job (admin key)',
        security: [{ AdminKeyAuth: [] }],
        params: AdminJobParams,
        querystring: AdminJobQuery,
        response: {
          200: respond(AdminJobView, 'The job, with its output from the offsets on', [EXAMPLE_ADMIN_JOB]),
          ...errorResponses('MC_ERR_ADMIN_UNAUTHORIZED', 'MC_ERR_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const job = jobs.get(request.params.id);
      if (!job) throw new MatchcastError('MC_ERR_NOT_FOUND', `No job ${request.params.id}`);
      return view(job, request.query.out_offset ?? 0, request.query.err_offset ?? 0);
    },
  );
}
