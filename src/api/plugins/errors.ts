import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { isMatchcastError } from '../../domain/index.js';

/** One invalid field of a 422 body (FastAPI-compatible shape). */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

interface AjvError {
  instancePath?: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

const CONTEXT_LOC: Record<string, string> = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
};

/** Maps Ajv errors to `{loc, msg, type}` entries, naming the field even for unknown or missing ones. */
export function toFieldErrors(errors: readonly AjvError[], context: string | undefined): FieldError[] {
  const root = CONTEXT_LOC[context ?? ''] ?? context ?? 'request';
  return errors.map((e) => {
    const loc: (string | number)[] = [root];
    for (const seg of (e.instancePath ?? '').split('/').slice(1)) {
      loc.push(/^\d+$/.test(seg) ? Number(seg) : seg.replace(/~1/g, '/').replace(/~0/g, '~'));
    }
    let msg = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      loc.push(e.params.additionalProperty);
      msg = 'unknown field';
    } else if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      loc.push(e.params.missingProperty);
      msg = 'field required';
    }
    return { loc, msg, type: e.keyword };
  });
}

/**
 * The one error handler: validation → 422 with the invalid fields; catalogue errors → their status and
 * `{detail}`; Fastify's own client errors keep their 4xx; anything else → 500 with the `request_id`
 * that the log line carries. Stack traces and internal messages never reach the caller.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.validation) {
      const detail = toFieldErrors(err.validation as AjvError[], err.validationContext);
      return reply.code(422).send({ detail });
    }
    if (isMatchcastError(err)) {
      if (err.statusCode < 500)
        return reply.code(err.statusCode).send({ detail: err.detail, code: err.code });
      // A server-side failure names its request_id, as its log line does, so a caller's report can be traced.
      request.log.warn({ code: err.code, err: err.message, request_id: request.id }, 'request failed');
      return sendRaw(reply, err.statusCode, { detail: err.detail, code: err.code, request_id: request.id });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: clientMessage(err), code: err.code ?? 'MC_ERR_BAD_REQUEST' });
    }
    request.log.error({ err, request_id: request.id }, 'internal error');
    return sendRaw(reply, 500, {
      detail: 'Internal server error',
      code: 'MC_ERR_INTERNAL',
      request_id: request.id,
    });
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ detail: 'Not Found', code: 'MC_ERR_NOT_FOUND' });
  });
}

/**
 * Sends an error body serialized here: a route's response schema for that status (e.g. `{detail, code}`)
 * would otherwise drop `request_id`.
 */
function sendRaw(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Fastify's client-error messages are safe (no internals); keep them short. */
function clientMessage(err: FastifyError): string {
  return (err.message || 'Bad request').slice(0, 200);
}
