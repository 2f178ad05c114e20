import os from 'node:os';
import { type Config, loadEnv, parseConfig } from '../config.js';
import { type Database, openDatabase } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import { importLegacyMetadata } from '../pipeline/index.js';
import { createObjectStore, type ObjectStore } from '../storage/index.js';
import { parseCliArgs, parseOrUsage } from './usage-error.js';

// What a command writes to and its settings (default stdout, stderr, the environment); tests replace
// them. A database or store handed to a command is left open; one it opens itself is closed.
export interface CommandIo {
  out?: (text: string) => void;
  err?: (text: string) => void;
  config?: Config;
}

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

export interface StoreCommandIo extends CommandIo {
  store?: ObjectStore;
  db?: Database;
}

// Runs `fn` on the store and database of `io` (else of the settings), an older layout's metadata
// imported first. A coded error is one line on `err`: exit 3 for a failed gate, 2 invalid, else 1.
export async function runOnStore(
  io: StoreCommandIo,
  label: string,
  fn: (deps: { db: Database; store: ObjectStore }, config: Config) => Promise<number>,
): Promise<number> {
  const err = writersOf(io).err;
  const config = io.config ?? parseConfig(loadEnv());
  // No logger: stdout carries the table or the JSON document and nothing else.
  const store = io.store ?? createObjectStore(config);
  let db: Database;
  try {
    db = io.db ?? (await openDatabase(config));
  } catch (e) {
    if (!io.store) await store.close();
    err(`${label}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  try {
    await importLegacyMetadata({ db, store }).catch(() => undefined);
    return await fn({ db, store }, config);
  } catch (e) {
    if (!isMatchcastError(e)) throw e;
    err(`${label}: ${e.message} [${e.code}]\n`);
    return e.code === 'MC_ERR_GATE_FAILED' ? 3 : e.code === 'MC_ERR_VALIDATION' ? 2 : 1;
  } finally {
    if (!io.store) await store.close();
    if (!io.db) await db.close();
  }
}

/** `$USER`, else the OS account name, else `unknown`. */
function defaultActor(): string {
  if (process.env.USER) return process.env.USER;
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The command line of `registry` and `runs`, or the exit code after writing `usage` (0 for --help, else 2). */
export function parseStoreArgs(argv: string[], io: CommandIo, usage: string) {
  const { out, err } = writersOf(io);
  const parsed = parseOrUsage(
    () =>
      parseCliArgs(argv, { strings: ['actor', 'reason'], booleans: ['json', 'force'], positionals: true }),
    err,
    usage,
  );
  if (!parsed) return 2;
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? out : err)(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  // The document with --json, else the text.
  const emit = (value: unknown, text: string) =>
    out(values.json ? `${JSON.stringify(value, null, 2)}\n` : text);
  return { ...values, actor: values.actor ?? defaultActor(), positionals, out, emit };
}
