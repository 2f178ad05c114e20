import { Type } from 'typebox';
import { ERROR_CATALOGUE, type ErrorCode } from '../domain/index.js';
import { Strict } from './common.js';

/** One invalid field of a 422 body (FastAPI-compatible `{loc, msg, type}`). */
const FieldError = Strict({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
    description: 'where: `query`, `path`, `body` or `header`, then the field name (and index)',
  }),
  msg: Type.String({ description: 'what is wrong, e.g. `field required`, `unknown field`' }),
  type: Type.String({ description: 'the failed rule (JSON Schema keyword), e.g. `type`, `minimum`' }),
});

/** The body of every error answer: a catalogue code, a detail safe to show, the request id on 5xx. */
export const ErrorBody = Type.Object(
  {
    detail: Type.Union([Type.String(), Type.Array(FieldError)], {
      description: 'a message; for MC_ERR_VALIDATION (422) the list of invalid fields',
    }),
    code: Type.Enum(Object.keys(ERROR_CATALOGUE) as ErrorCode[], {
      description: 'stable error code (docs/errors.md); clients branch on it, never on `detail`',
    }),
    request_id: Type.Optional(
      Type.String({ description: 'the X-Request-Id of the request; on 5xx answers' }),
    ),
  },
  { description: 'Error body of every non-2xx answer' },
);

/** Example error bodies per code; codes without an entry use the catalogue's message. */
const EXAMPLE_DETAIL: Partial<Record<ErrorCode, unknown>> = {
  MC_ERR_VALIDATION: [{ loc: ['path', 'match_id'], msg: 'must be integer', type: 'type' }],
  MC_ERR_MATCH_NOT_FOUND: 'Match 999999 is not in the current predictions file',
  MC_ERR_BAD_STAGE: 'Stage "candidate" is not one of champion, challenger',
};

/** The error body a code answers with (for examples and docs). */
function exampleError(code: ErrorCode): { detail: unknown; code: ErrorCode; request_id?: string } {
  const { message, status } = ERROR_CATALOGUE[code];
  const body = { detail: EXAMPLE_DETAIL[code] ?? message, code };
  return status >= 500 ? { ...body, request_id: '6f1c2a3e-8d4b-4c1e-9a7f-2b5d0e8c1a43' } : body;
}

/** Response entries of a route's own codes by status; buildApp adds 401, 422 and 500. */
export function errorResponses(...codes: ErrorCode[]): Record<number, ReturnType<typeof errorResponse>> {
  const statusOf = (c: ErrorCode) => ERROR_CATALOGUE[c].status;
  return Object.fromEntries(
    [...new Set(codes.map(statusOf))].map((s) => [s, errorResponse(codes.filter((c) => statusOf(c) === s))]),
  );
}

function errorResponse(codes: readonly ErrorCode[]) {
  const description = codes.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].message}`).join('; ');
  return { ...ErrorBody, description, examples: codes.map(exampleError) };
}
