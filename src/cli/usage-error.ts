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
