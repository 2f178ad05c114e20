import pino from 'pino';
import { createLogger, type Logger, REDACT_PATHS } from '../logger.js';
import { logProgress, type Progress, stderrTerminal } from '../pipeline/index.js';

/** Record fields a terminal line leaves out: the level is a prefix, the rest is noise to a reader. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);
/** Longest terminal line; the full record stays available as JSON (`--json`, or not on a terminal). */
const MAX_LINE = 300;

function shortValue(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string')
    return JSON.stringify((v as { message: string }).message);
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** A pino JSON line as one human line: `warning: msg  key=value …` (info lines without a prefix). */
export function humanLogLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const level = Number(record.level);
  const prefix = level >= 50 ? 'error: ' : level >= 40 ? 'warning: ' : '';
  const fields = Object.entries(record)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${shortValue(v)}`);
  const line = `${prefix}${String(record.msg ?? '')}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}`;
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

/**
 * On a terminal (stderr) without `json`: human lines and progress bars on stderr, never interleaved.
 * Otherwise JSON log lines (on stderr with `jsonTo`, when stdout carries a document) and progress steps.
 */
export function commandOutput(options: {
  name: string;
  level: string;
  json?: boolean;
  jsonTo?: 'stdout' | 'stderr';
}): { human: boolean; log: Logger; progress: Progress } {
  const redact = { paths: REDACT_PATHS, censor: '[redacted]' };
  if (process.stderr.isTTY && !options.json) {
    const terminal = stderrTerminal();
    const log = pino(
      { name: options.name, level: options.level, redact },
      { write: (line: string) => terminal.line(humanLogLine(line)) },
    );
    return { human: true, log, progress: terminal.progress() };
  }
  const log =
    options.jsonTo === 'stderr'
      ? pino({ name: options.name, level: options.level, redact }, pino.destination(2))
      : createLogger(options.level, options.name);
  return { human: false, log, progress: logProgress(log) };
}
