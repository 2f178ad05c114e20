import type { FastifyInstance, FastifyRequest } from 'fastify';
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
import { keysMatch } from '../plugins/auth.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Only the machine itself, with the API key, may hand jobs to the server: the embedded database
 * accepts one process, so `matchcast ingest` and `matchcast pipeline` run here while `start` serves.
 */
function checkAdmin(request: FastifyRequest, apiKey: string | undefined): void {
  if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
    throw new MatchcastError('MC_ERR_NOT_FOUND', 'Not found');
  }
  const header = request.headers['x-api-key'];
  if (apiKey === undefined || typeof header !== 'string' || !keysMatch(header, apiKey)) {
    throw new MatchcastError('MC_ERR_UNAUTHORIZED');
  }
}

function view(job: AdminJob, outOffset: number, errOffset: number) {
  return {
    ...job,
    stdout: job.stdout.slice(outOffset),
    stderr: job.stderr.slice(errOffset),
    stdout_length: job.stdout.length,
    stderr_length: job.stderr.length,
  };
}

/** `POST /admin/jobs`, `GET /admin/jobs/{id}`: loopback-only, keyed; registered when the process runs jobs. */
export async function adminRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const jobs = ctx.jobs;
  if (!jobs) return;
  app.post<{ Body: { kind: AdminJobKind; argv: string[] } }>(
    '/admin/jobs',
    {
      schema: {
        tags: ['admin'],
        summary: 'Hand an `ingest` or `pipeline` command to the running embedded server (loopback only)',
        security: [{ ApiKeyAuth: [] }],
        body: AdminJobRequest,
        response: {
          202: respond(AdminJobView, 'The job is queued; poll GET /admin/jobs/{id}', [EXAMPLE_ADMIN_JOB]),
          ...errorResponses('MC_ERR_UNAUTHORIZED', 'MC_ERR_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      checkAdmin(request, ctx.config.apiKey);
      const job = jobs.submit(request.body.kind, request.body.argv, 'cli');
      reply.code(202);
      return view(job, 0, 0);
    },
  );
  app.get<{ Params: { id: string }; Querystring: { out_offset?: number; err_offset?: number } }>(
    '/admin/jobs/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'State and output of a handed-off job (loopback only)',
        security: [{ ApiKeyAuth: [] }],
        params: AdminJobParams,
        querystring: AdminJobQuery,
        response: {
          200: respond(AdminJobView, 'The job, with its output from the offsets on', [EXAMPLE_ADMIN_JOB]),
          ...errorResponses('MC_ERR_UNAUTHORIZED', 'MC_ERR_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      checkAdmin(request, ctx.config.apiKey);
      const job = jobs.get(request.params.id);
      if (!job) throw new MatchcastError('MC_ERR_NOT_FOUND', `No job ${request.params.id}`);
      return view(job, request.query.out_offset ?? 0, request.query.err_offset ?? 0);
    },
  );
}
