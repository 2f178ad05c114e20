import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode, isMatchcastError, MatchcastError } from '../../domain/index.js';

/** One invalid field of a 422 body (FastAPI-compatible shape). */
interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

interface AjvError {
  instancePath?: string;
  schemaPath?: string;
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

/** `must be one of: 'a', 'b'` — the allowed values of an enum as the caller would write them. */
function oneOf(values: readonly unknown[]): string {
  return `must be one of: ${values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ')}`;
}

/** Folds each union of literals into one `enum` error, not one per branch and a bare anyOf message. */
function foldEnums(errors: readonly AjvError[]): AjvError[] {
  const folded = new Set<AjvError>();
  const out: AjvError[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf' || e.schemaPath === undefined) continue;
    const branches = errors.filter(
      (b) => b !== e && b.instancePath === e.instancePath && b.schemaPath?.startsWith(`${e.schemaPath}/`),
    );
    const values = branches.flatMap((b) =>
      b.keyword === 'const'
        ? [b.params?.allowedValue]
        : b.keyword === 'type' && b.params?.type === 'null'
          ? [null]
          : [],
    );
    // Only a union made entirely of literals (and null) reads as an enum.
    if (values.length === 0 || values.length !== branches.length) continue;
    for (const b of [e, ...branches]) folded.add(b);
    out.push({ instancePath: e.instancePath, keyword: 'enum', params: { allowedValues: values } });
  }
  // Each folded union takes the place of its anyOf error; every other error keeps its place.
  let next = 0;
  return errors.flatMap((e) => {
    if (!folded.has(e)) return [e];
    return e.keyword === 'anyOf' ? [out[next++]!] : [];
  });
}

/** Maps Ajv errors to `{loc, msg, type}` entries, naming the field even for unknown or missing ones. */
export function toFieldErrors(errors: readonly AjvError[], context: string | undefined): FieldError[] {
  const root = CONTEXT_LOC[context ?? ''] ?? context ?? 'request';
  return foldEnums(errors).map((e) => {
    const loc: (string | number)[] = [root];
    for (const seg of (e.instancePath ?? '').split('/').slice(1))
      loc.push(/^\d+$/.test(seg) ? Number(seg) : seg.replace(/~1/g, '/').replace(/~0/g, '~'));
    let msg = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      loc.push(e.params.additionalProperty);
      msg = 'unknown field';
    } else if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      loc.push(e.params.missingProperty);
      msg = 'field required';
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      msg = oneOf(e.params.allowedValues);
    }
    return { loc, msg, type: e.keyword };
  });
}

/** Fastify's own error codes → the catalogue; any other client error keeps its status as MC_ERR_BAD_REQUEST. */
const FRAMEWORK_ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MC_ERR_INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MC_ERR_INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'MC_ERR_PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_TYPE: 'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MC_ERR_BAD_REQUEST',
  FST_ERR_BAD_URL: 'MC_ERR_BAD_REQUEST',
  FST_ERR_ASYNC_CONSTRAINT: 'MC_ERR_BAD_REQUEST',
  FST_ERR_NOT_FOUND: 'MC_ERR_NOT_FOUND',
  FST_ERR_VALIDATION: 'MC_ERR_VALIDATION',
};

/** Client errors of plugins (e.g. @fastify/static) by status, when they carry no framework code we map. */
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  403: 'MC_ERR_FORBIDDEN',
  404: 'MC_ERR_NOT_FOUND',
  408: 'MC_ERR_REQUEST_TIMEOUT',
  413: 'MC_ERR_PAYLOAD_TOO_LARGE',
  415: 'MC_ERR_UNSUPPORTED_MEDIA_TYPE',
  431: 'MC_ERR_HEADERS_TOO_LARGE',
};

/** The body every error answer carries (src/schemas/errors.ts `ErrorBody`). */
interface ErrorAnswer {
  status: number;
  body: { detail: unknown; code: ErrorCode; request_id?: string };
}

/** Maps any error onto the catalogue (unknown errors → 500 MC_ERR_INTERNAL); 5xx answers name the request id. */
function toErrorAnswer(err: FastifyError | Error, requestId: string): ErrorAnswer {
  const e = err as FastifyError;
  if (e.validation) {
    const detail = toFieldErrors(e.validation as AjvError[], e.validationContext);
    return { status: 422, body: { detail, code: 'MC_ERR_VALIDATION' } };
  }
  if (isMatchcastError(err)) {
    const body = { detail: err.detail, code: err.code };
    return {
      status: err.statusCode,
      body: err.statusCode >= 500 ? { ...body, request_id: requestId } : body,
    };
  }
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = FRAMEWORK_ERROR_CODES[e.code ?? ''] ?? BY_STATUS[status] ?? 'MC_ERR_BAD_REQUEST';
    // A mapped code answers with its catalogue status; an unmapped client error keeps the framework's.
    const keepStatus = code === 'MC_ERR_BAD_REQUEST' && !FRAMEWORK_ERROR_CODES[e.code ?? ''];
    return {
      status: keepStatus ? status : ERROR_CATALOGUE[code].status,
      // Fastify's client-error messages are safe (no internals); keep them short.
      body: { detail: (e.message || 'Bad request').slice(0, 200), code },
    };
  }
  return {
    status: 500,
    body: { detail: ERROR_CATALOGUE.MC_ERR_INTERNAL.message, code: 'MC_ERR_INTERNAL', request_id: requestId },
  };
}

/** The one error handler: stack traces and internal messages never reach the caller; 5xx are logged. */
export function registerErrorHandling(
  app: FastifyInstance,
  // True when an unmatched request lacks a valid key for a protected prefix (answered 401).
  options: { needsKey?: (request: FastifyRequest) => boolean } = {},
): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const answer = toErrorAnswer(err, request.id);
    if (isMatchcastError(err) && err.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(err.retryAfterSeconds));
    if (answer.status >= 500) {
      if (isMatchcastError(err))
        request.log.warn({ code: err.code, err: err.message, request_id: request.id }, 'request failed');
      else request.log.error({ err, request_id: request.id }, 'internal error');
    }
    return sendError(reply, answer);
  });

  // An unmatched URL under a key-protected prefix answers 401 without the key: no route probing.
  app.setNotFoundHandler((request, reply) => {
    const code = options.needsKey?.(request) ? 'MC_ERR_UNAUTHORIZED' : 'MC_ERR_NOT_FOUND';
    sendError(reply, toErrorAnswer(new MatchcastError(code), request.id));
  });
}

/** Serialized here: `detail` may be any value, which a per-status response serializer could reshape. */
function sendError(reply: FastifyReply, answer: ErrorAnswer): FastifyReply {
  return reply.code(answer.status).type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
}

/** Fastify's `frameworkErrors` (undecodable URL, long path parameter): the same body as every error. */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(reply.header('x-request-id', request.id), toErrorAnswer(err, request.id));
}

const CLIENT_ERRORS: Record<string, { text: string; code: ErrorCode }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { text: 'Request Timeout', code: 'MC_ERR_REQUEST_TIMEOUT' },
  HPE_HEADER_OVERFLOW: { text: 'Request Header Fields Too Large', code: 'MC_ERR_HEADERS_TOO_LARGE' },
};

/** Requests Node's HTTP parser rejects before Fastify sees them still get a `{detail, code}` body. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { text: 'Bad Request', code: 'MC_ERR_BAD_REQUEST' };
  const entry = ERROR_CATALOGUE[known.code];
  const body = JSON.stringify({ detail: entry.message, code: known.code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${entry.status} ${known.text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
