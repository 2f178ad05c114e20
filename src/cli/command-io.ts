import { type Config, loadEnv, parseConfig } from '../config.js';
import { isMatchcastError } from '../domain/index.js';

/**
 * What a command writes to and reads its settings from; tests replace them. Defaults: stdout, stderr
 * and `parseConfig(loadEnv())`. A database or store handed to a command is left open; one it opens
 * itself is closed at its end.
 */
export interface CommandIo {
  out?: (text: string) => void;
  err?: (text: string) => void;
  config?: Config;
}

/** The command's writers: `io`'s, else stdout and stderr. */
export function writersOf(io: CommandIo): { out: (text: string) => void; err: (text: string) => void } {
  return {
    out: io.out ?? ((t) => void process.stdout.write(t)),
    err: io.err ?? ((t) => void process.stderr.write(t)),
  };
}

/** The settings of `io`, else of the environment; undefined (the reason written to `err`) when invalid. */
export function configOf(io: CommandIo, err: (text: string) => void): Config | undefined {
  try {
    return io.config ?? parseConfig(loadEnv());
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return undefined;
  }
}

/** A failure as a command prints it: `CODE: message` for a coded error, else its stack. */
export function failureText(e: unknown): string {
  return isMatchcastError(e) ? `${e.code}: ${e.message}` : ((e as Error).stack ?? String(e));
}
