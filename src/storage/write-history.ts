import { randomBytes } from 'node:crypto';

/**
 * A conditional write whose answer is lost (timeout, reset, 5xx) may or may not have landed, and
 * others may have written on top since. Each conditional write of the S3 driver therefore carries
 * the ids of the writes it builds on, newest first, in its user metadata, so the writer can tell
 * afterwards whether its write is part of the object's history. Resending blindly or guessing from
 * the bytes loses or doubles a compare-and-swap update.
 */
export const WRITE_HISTORY_META = 'mc-writes';
/** The history starts at the object's creation by a create-exclusive write. */
export const CREATED = '^';
/** A compare-and-swap over an object that had no history (written by a foreign writer). */
export const UNKNOWN = '?';
/** A plain put: it replaced whatever was there, perhaps a write whose answer was lost. */
export const BLIND = '!';
/** Ids kept per object: enough to look past a burst of rival writes while an answer is lost. */
export const HISTORY_LENGTH = 16;

export function newWriteId(): string {
  return randomBytes(6).toString('hex');
}

/** Parses the metadata value; empty for an object written without one. */
export function parseHistory(value: string | undefined): string[] {
  return value ? value.split(' ').filter((s) => s.length > 0) : [];
}

/**
 * The history a write records: its own id, then the history of the object it replaces (`base`),
 * `CREATED` for a create-exclusive write, `BLIND` for a plain put, `UNKNOWN` for a base without one.
 */
export function historyOf(id: string, base: string[] | 'created' | 'blind'): string[] {
  const rest =
    base === 'created' ? [CREATED] : base === 'blind' ? [BLIND] : base.length === 0 ? [UNKNOWN] : base;
  return [id, ...rest].slice(0, HISTORY_LENGTH);
}

/**
 * What the current object's history says of a write whose answer was lost, when the write's
 * precondition no longer holds. `base` is what the write had to replace: the id of that object's
 * newest write, `CREATED` for a create-exclusive write, `UNKNOWN` for an object without a history.
 * - `landed`: the write is in the history (it may have been replaced since);
 * - `refused`: the history reaches back to the base, or to the key's creation, without it (a write
 *   deleted since is not there to build on either);
 * - `unknown`: the kept history is too short to tell, or passes a plain put (`BLIND`) or an object
 *   without a history (`UNKNOWN`, other than the base), either of which may have replaced the write.
 */
export function outcomeOf(current: string[], id: string, base: string): 'landed' | 'refused' | 'unknown' {
  for (const w of current) {
    if (w === id) return 'landed';
    if (w === base || w === CREATED) return 'refused';
    if (w === BLIND || w === UNKNOWN) return 'unknown';
  }
  return 'unknown';
}
