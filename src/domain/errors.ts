/**
 * The one error catalogue: every error the service raises on purpose has a stable code and an HTTP
 * status. Tests assert on `code`, never on message text.
 */
export const ERROR_CATALOGUE = {
  MC_ERR_VALIDATION: { status: 422, message: 'Request validation failed' },
  MC_ERR_UNAUTHORIZED: { status: 401, message: 'Missing or invalid API key' },
  MC_ERR_NOT_FOUND: { status: 404, message: 'Not found' },
  MC_ERR_MATCH_NOT_FOUND: { status: 404, message: 'Match not found' },
  MC_ERR_BAD_STAGE: { status: 400, message: 'Stage is not in the loaded set of model stages' },
  MC_ERR_PREDICTIONS_UNAVAILABLE: { status: 503, message: 'Predictions file is not available' },
  MC_ERR_BROKER_UNAVAILABLE: { status: 503, message: 'Task broker is unavailable' },
  MC_ERR_DATABASE_UNAVAILABLE: { status: 503, message: 'Database is unavailable' },
  MC_ERR_STORE_UNAVAILABLE: { status: 503, message: 'Object store is unavailable' },
  MC_ERR_TASK_TIMEOUT: { status: 504, message: 'The worker did not answer in time' },
  MC_ERR_TASK_FAILED: { status: 500, message: 'The task failed on the worker' },
  MC_ERR_MODEL_UNAVAILABLE: { status: 503, message: 'No model is available for this stage' },
  MC_ERR_INVALID_KEY: { status: 400, message: 'Invalid object key' },
  MC_ERR_CONFIG: { status: 500, message: 'Invalid configuration' },
  MC_ERR_CONFLICT: { status: 409, message: 'Concurrent modification' },
  MC_ERR_PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  MC_ERR_INTERNAL: { status: 500, message: 'Internal server error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error with a stable code. `detail` is safe to show to a caller; never put secrets in it. */
export class MatchcastError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly detail: unknown;

  constructor(code: ErrorCode, detail?: unknown, options?: { cause?: unknown }) {
    const entry = ERROR_CATALOGUE[code];
    super(typeof detail === 'string' ? detail : entry.message, options);
    this.name = 'MatchcastError';
    this.code = code;
    this.statusCode = entry.status;
    this.detail = detail ?? entry.message;
  }
}

export function isMatchcastError(err: unknown, code?: ErrorCode): err is MatchcastError {
  return err instanceof MatchcastError && (code === undefined || err.code === code);
}
