import { isMatchcastError, MatchcastError, withTimeout } from '../domain/index.js';

// Node socket errors; SQLSTATE classes 08 connection, 53 resources, 57 operator intervention (57014
// statement_timeout), 58 system error, and 3D000: the database does not exist (dropped; may come back).
const UNAVAILABLE_CODE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN|(08|53|57|58).{3}|3D000)$/;
/** pg/pglite client messages that mean "no usable connection". */
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|PGlite is closed|Client has encountered a connection error|Cannot use a pool after calling end/i;

/** True when `err` says the database cannot be reached (rather than: the SQL was wrong). */
export function isUnavailableError(err: unknown): boolean {
  if (isMatchcastError(err, 'MC_ERR_DATABASE_UNAVAILABLE')) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODE.test(code)) return true;
  if (err instanceof AggregateError) return err.errors.some(isUnavailableError);
  return UNAVAILABLE_MESSAGE.test(err.message);
}

/** A relation or schema does not exist (42P01, 3F000), as after a database re-created: migrating heals it. */
export function isSchemaGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '42P01' || code === '3F000';
}

/** Maps connection-level failures to `MC_ERR_DATABASE_UNAVAILABLE`; anything else is rethrown as is. */
export function mapDatabaseError(err: unknown): never {
  if (isMatchcastError(err) || !isUnavailableError(err)) throw err;
  const reason = err instanceof Error ? err.message : String(err);
  throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', `Database is unavailable: ${reason}`, {
    cause: err,
  });
}

/** `promise`, rejected with `MC_ERR_DATABASE_UNAVAILABLE` when a `timeoutMs` is set and passes first. */
export function withDatabaseTimeout<T>(promise: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return promise;
  const message = `Database did not answer the query within ${timeoutMs} ms`;
  return withTimeout(promise, timeoutMs, () => new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', message));
}
