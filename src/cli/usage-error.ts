import { INSTANT_FORMAT, parseInstant } from '../domain/index.js';

/**
 * A bad option or argument on the command line. `src/cli.ts` answers it with one line and the
 * command's usage, exit code 2, like Node's own `ERR_PARSE_ARGS_*` errors.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--<option>` as a TCP port (0..65535), or a {@link UsageError}. */
export function portOption(option: string, raw: string): string {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new UsageError(`--${option} expects a port 0..65535, got "${raw}"`);
  return raw;
}

/** `--<option>` as a positive integer, or a {@link UsageError}; undefined when not given. */
export function positiveIntOption(option: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--${option} expects a positive integer, got "${raw}"`);
  return Number(raw);
}

/**
 * `--<option>` as an instant, or a {@link UsageError}; undefined when not given. Read by the one strict
 * parser of the data (`parseInstant`): a bare date is midnight UTC, a date-time without a zone is UTC,
 * and a date that rolls over (`2023-02-30`, `24:00`) or a year outside 1900–2100 is refused.
 */
export function dateOption(option: string, raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const d = parseInstant(raw);
  if (!d)
    throw new UsageError(
      `--${option} expects an ISO 8601 date or date-time (${INSTANT_FORMAT}), got "${raw}"`,
    );
  return d;
}
