/** The one error catalogue: every error raised on purpose has a stable code and an HTTP status. */
export const ERROR_CATALOGUE = {
  MC_ERR_VALIDATION: { status: 422, message: 'Request validation failed' },
  MC_ERR_UNAUTHORIZED: { status: 401, message: 'Missing or invalid API key' },
  MC_ERR_NOT_FOUND: { status: 404, message: 'Not found' },
  MC_ERR_MATCH_NOT_FOUND: { status: 404, message: 'Match not found' },
  MC_ERR_NO_EXPLANATION: { status: 404, message: 'The match has no served prediction that can be explained' },
  MC_ERR_BAD_STAGE: { status: 400, message: 'Stage is not in the loaded set of model stages' },
  MC_ERR_PREDICTIONS_UNAVAILABLE: { status: 503, message: 'Predictions file is not available' },
  MC_ERR_BROKER_UNAVAILABLE: { status: 503, message: 'Task broker is unavailable' },
  MC_ERR_QUEUE_FULL: {
    status: 503,
    message: 'Too many tasks are waiting; retry after the Retry-After delay',
  },
  MC_ERR_TASK_EXPIRED: { status: 504, message: 'The task expired before a worker started it' },
  MC_ERR_DATABASE_UNAVAILABLE: { status: 503, message: 'Database is unavailable' },
  MC_ERR_STORE_UNAVAILABLE: { status: 503, message: 'Object store is unavailable' },
  MC_ERR_ARTIFACT_INTEGRITY: {
    status: 503,
    message: 'A stored artifact does not match the size and SHA-256 recorded when it was published',
  },
  MC_ERR_TASK_TIMEOUT: { status: 504, message: 'The worker did not answer in time' },
  MC_ERR_TASK_FAILED: { status: 500, message: 'The task failed on the worker' },
  MC_ERR_MODEL_UNAVAILABLE: { status: 503, message: 'No model is available for this stage' },
  MC_ERR_GOALS_MODEL_UNAVAILABLE: {
    status: 503,
    message:
      'No goals model is registered (<MODEL_NAME>-goals, alias champion); run `matchcast pipeline run`',
  },
  MC_ERR_FEATURES_MISMATCH: {
    status: 503,
    message: 'The served features were built by another feature definition than the model was trained on',
  },
  MC_ERR_NOT_OUT_OF_SAMPLE: {
    status: 409,
    message: 'The match is predicted before the model training cut-off and has no out-of-sample prediction',
  },
  MC_ERR_GATE_FAILED: { status: 422, message: 'A validation gate of the run failed; nothing was published' },
  MC_ERR_INVALID_KEY: { status: 400, message: 'Invalid object key' },
  MC_ERR_CONFIG: { status: 500, message: 'Invalid configuration' },
  MC_ERR_CONFLICT: { status: 409, message: 'Concurrent modification' },
  MC_ERR_PROMOTION_REFUSED: {
    status: 409,
    message:
      'The promotion guard refused the candidate (no edge over the champion or the opening line); give a reason to override',
  },
  MC_ERR_DATASET_MISMATCH: {
    status: 409,
    message: 'The data folder holds another data set than the one asked for',
  },
  // Per-row verdicts of ingest (the `code` of a skipped row), never HTTP answers of the API.
  MC_ERR_INVALID_ROW: { status: 422, message: 'A source row is malformed; it was skipped' },
  MC_ERR_INVALID_DATE: {
    status: 422,
    message:
      'A date or time names no real instant (rolled-over day, hour 24, year out of range); row skipped',
  },
  MC_ERR_OBSERVED_IN_FUTURE: {
    status: 422,
    message: 'An odds observation is stamped after now (the clock, or --now); row skipped',
  },
  // A source's poll failed or was refused; recorded on the source, nothing stored changes (docs/sources.md).
  MC_ERR_SOURCE_UNREACHABLE: { status: 502, message: 'The source did not answer, or answered an HTTP error' },
  MC_ERR_SOURCE_TIMEOUT: { status: 504, message: 'The source did not answer in time' },
  MC_ERR_SOURCE_TRUNCATED: { status: 502, message: 'The source sent a truncated body' },
  MC_ERR_SOURCE_EMPTY: { status: 502, message: 'The source sent an empty body' },
  MC_ERR_SOURCE_LAYOUT_CHANGED: {
    status: 422,
    message: 'The source changed its layout (header or shape) or is not in its declared format',
  },
  MC_ERR_SOURCE_SHRUNK: { status: 422, message: 'The source file lost rows it held at the last poll' },
  MC_ERR_SOURCE_ENCODING: { status: 422, message: 'The source is not in its declared text encoding' },
  MC_ERR_SOURCE_ROWS_SKIPPED: {
    status: 422,
    message: 'Some rows of the source were skipped or refused (the rest were applied)',
  },
  MC_ERR_SOURCE_UNKNOWN_TEAMS: {
    status: 422,
    message: 'The source names teams that match no known team; their rows wait for `matchcast teams alias`',
  },
  MC_ERR_PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  // HTTP-level errors Fastify or Node's parser raise, mapped onto the catalogue (src/api/plugins/errors.ts).
  MC_ERR_BAD_REQUEST: { status: 400, message: 'Malformed request' },
  MC_ERR_INVALID_JSON: { status: 400, message: 'The request body is not valid JSON' },
  MC_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type (send application/json)' },
  MC_ERR_REQUEST_TIMEOUT: { status: 408, message: 'Request not received in time' },
  MC_ERR_HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  MC_ERR_FORBIDDEN: { status: 403, message: 'Invalid or expired link' },
  MC_ERR_UI_UNAVAILABLE: { status: 503, message: 'The web UI is not built' },
  MC_ERR_INTERNAL: { status: 500, message: 'Internal server error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error with a stable code. `detail` is safe to show to a caller; never put secrets in it. */
export class MatchcastError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly detail: unknown;
  /** Seconds a client should wait before retrying; the API sends it as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, detail?: unknown, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    const entry = ERROR_CATALOGUE[code];
    super(typeof detail === 'string' ? detail : entry.message, options);
    this.name = 'MatchcastError';
    this.code = code;
    this.statusCode = entry.status;
    this.detail = detail ?? entry.message;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export function isMatchcastError(err: unknown, code?: ErrorCode): err is MatchcastError {
  return err instanceof MatchcastError && (code === undefined || err.code === code);
}
