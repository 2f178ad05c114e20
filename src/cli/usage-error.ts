import { parseArgs } from 'node:util';
import { INSTANT_FORMAT, parseInstant } from '../domain/index.js';

/** A bad option or argument: `src/cli.ts` answers it like Node's `ERR_PARSE_ARGS_*` (usage, exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command's string and boolean options (`--help`/`-h` is added) and short names. */
interface OptionTable<S extends string, B extends string> {
  strings?: readonly S[];
  booleans?: readonly B[];
  short?: Partial<Record<NoInfer<S | B>, string>>;
  positionals?: boolean;
}

// `parseArgs` taking a negative number as a string option's value (`--concurrency -3`, "ambiguous" to
// Node), so that the option's range check names the accepted values.
export function parseCliArgs<const S extends string = never, const B extends string = never>(
  argv: readonly string[],
  table: OptionTable<S, B>,
): { values: Partial<Record<S, string> & Record<B | 'help', boolean>>; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const name of table.strings ?? []) options[name] = { type: 'string' };
  for (const name of table.booleans ?? []) options[name] = { type: 'boolean' };
  options.help = { type: 'boolean', short: 'h' };
  for (const [name, short] of Object.entries<string | undefined>(table.short ?? {}))
    options[name]!.short = short;
  const short = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name]] : [])));
  const args = [...argv];
  for (let i = 0; i < args.length - 1; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : short.get(args[i]!.slice(1));
    if (name && options[name]?.type === 'string' && /^-\.?\d/.test(args[i + 1]!))
      args.splice(i, 2, `--${name}=${args[i + 1]}`);
  }
  return parseArgs({ args, options, allowPositionals: table.positionals === true }) as never;
}

/** `--<option>` as a number (an integer when `integer`) within `min..max`; undefined when not given. */
export function numberOption(
  option: string,
  raw: string | undefined,
  min: number,
  max: number,
  integer = false,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = raw.trim() === '' ? Number.NaN : Number(raw);
  if ((integer ? !/^-?\d+$/.test(raw) : !Number.isFinite(n)) || n < min || n > max)
    throw new UsageError(
      `--${option} expects ${integer ? 'an integer' : 'a number'} ${min}..${max}, got "${raw}"`,
    );
  return n;
}

/** `--<option>` as an integer within `min..max`, or a {@link UsageError}; undefined when not given. */
export function intOption(
  option: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | undefined {
  return numberOption(option, raw, min, max, true);
}

/** `--<option>` as a TCP port (0..65535), or a {@link UsageError}. */
export function portOption(option: string, raw: string): string {
  intOption(option, raw, 0, 65535);
  return String(Number(raw));
}

/** Years a date option accepts (the strict instant parser's range). */
export const DATE_OPTION_YEARS = [1900, 2100] as const;

/** `--<option>` read by the strict `parseInstant`, or a {@link UsageError}; undefined when not given. */
export function dateOption(option: string, raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const d = parseInstant(raw);
  if (!d)
    throw new UsageError(
      `--${option} expects an ISO 8601 date or date-time (${INSTANT_FORMAT}), got "${raw}"`,
    );
  return d;
}

// `parse()`, or undefined when it throws: the message and `usage` go to `err`, and the command returns
// exit code 2 itself (its callers, tests included, read the code).
export function parseOrUsage<T>(parse: () => T, err: (text: string) => void, usage: string): T | undefined {
  try {
    return parse();
  } catch (e) {
    err(`${(e as Error).message}\n\n${usage}\n`);
    return undefined;
  }
}

/** Writes a command's help (to stdout unless `out` is given); returns its exit code, 0. */
export function showHelp(text: string, out: (t: string) => void = (t) => process.stdout.write(t)): number {
  out(`${text}\n`);
  return 0;
}
