import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (e.g. `%ZZ`) or a path parameter over
 * maxParamLength gets the same `{detail, code}` body and X-Request-Id as every other error.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  reply
    .code(status)
    .header('x-request-id', request.id)
    .send({ detail: clientMessage(err), code: err.code ?? 'MC_ERR_BAD_REQUEST' });
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; detail: string; code: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    text: 'Request Timeout',
    detail: 'Request not received in time',
    code: 'MC_ERR_REQUEST_TIMEOUT',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    text: 'Request Header Fields Too Large',
    detail: 'Request headers too large',
    code: 'MC_ERR_HEADERS_TOO_LARGE',
  },
};

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser rejects before Fastify sees them
 * (malformed request line, headers too large) still get a JSON `{detail, code}` and an X-Request-Id.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? {
    status: 400,
    text: 'Bad Request',
    detail: 'Malformed HTTP request',
    code: 'MC_ERR_BAD_REQUEST',
  };
  const body = JSON.stringify({ detail: known.detail, code: known.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${known.text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * Ajv's type coercion turns the strings "Infinity" and "-Infinity" into numbers that pass `integer`,
 * `minimum` and `maximum` (its range checks only run on finite numbers). This preHandler rejects any
 * non-finite number left in params, query or a top-level body field with the usual 422.
 */
export function registerFiniteNumberCheck(app: FastifyInstance): void {
  const parts = [
    ['params', 'path'],
    ['query', 'query'],
    ['body', 'body'],
  ] as const;
  app.addHook('preHandler', (request, reply, done) => {
    const detail: FieldError[] = [];
    for (const [part, loc] of parts) {
      const value = request[part];
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
        const values = Array.isArray(v) ? v : [v];
        if (values.some((x) => typeof x === 'number' && !Number.isFinite(x))) {
          detail.push({ loc: [loc, name], msg: 'must be a finite number', type: 'type' });
        }
      }
    }
    if (detail.length > 0) {
      reply.code(422).send({ detail });
      return;
    }
    done();
  });
}
