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
 * `--<option>` as an instant, or a {@link UsageError}; undefined when not given. A bare date is
 * midnight UTC, and a date-time without a zone is UTC too (the data's convention).
 */
export function dateOption(option: string, raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const iso = /^\d{4}-\d\d-\d\d$/.test(raw)
    ? `${raw}T00:00:00Z`
    : /[zZ]|[+-]\d\d:?\d\d$/.test(raw)
      ? raw
      : `${raw}Z`;
  const d = new Date(iso);
  // Date rolls a day past the month's end over (2023-02-30 → 2 March): such a date is refused.
  const ymd = /^(\d{4})-(\d\d)-(\d\d)/.exec(raw)?.map(Number);
  const rolled =
    ymd !== undefined && new Date(Date.UTC(ymd[1]!, ymd[2]! - 1, ymd[3]!)).getUTCDate() !== ymd[3];
  if (Number.isNaN(d.getTime()) || rolled)
    throw new UsageError(`--${option} expects an ISO 8601 date or date-time, got "${raw}"`);
  return d;
}
