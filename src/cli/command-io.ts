import type { Config } from '../config.js';

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
