import type { MatchUpsert } from '../db/index.js';
import type { OddsInput, RowResult } from './types.js';

/** A field of the current row by header name: trimmed text, or undefined when the file has no such column. */
export type Field = (name: string) => string | undefined;

/** Thrown while reading one row; becomes a skipped-row reason. */
export class RowError extends Error {}

export function required(get: Field, name: string): string {
  const v = get(name);
  if (v === undefined || v === '') throw new RowError(`missing ${name}`);
  return v;
}

/** First present, non-empty column among `names`. */
export function firstOf(get: Field, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = get(n);
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

function goals(raw: string | undefined, name: string): number | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,2}$/.test(raw)) throw new RowError(`${name} is not a goal count: "${raw}"`);
  return Number(raw);
}

/** Full-time goals: both present (finished) or both empty (a scheduled fixture). */
export function score(
  get: Field,
  homeCols: readonly string[],
  awayCols: readonly string[],
): Pick<MatchUpsert, 'status' | 'homeScore' | 'awayScore'> {
  const homeName = homeCols.find((c) => get(c) !== undefined) ?? homeCols[0];
  const awayName = awayCols.find((c) => get(c) !== undefined) ?? awayCols[0];
  const home = goals(get(homeName), homeName);
  const away = goals(get(awayName), awayName);
  if ((home === null) !== (away === null)) throw new RowError(`only one of ${homeName}/${awayName} is given`);
  return home === null || away === null
    ? { status: 'scheduled', homeScore: null, awayScore: null }
    : { status: 'finished', homeScore: home, awayScore: away };
}

/** A decimal odd: empty = unknown (null); anything else must be a number above 1. */
export function odd(get: Field, name: string): number | null {
  const raw = get(name);
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 1) throw new RowError(`${name} is not a decimal odd above 1: "${raw}"`);
  return n;
}

export function teams(home: string, away: string): { homeTeamName: string; awayTeamName: string } {
  if (home === away) throw new RowError(`home and away team are both "${home}"`);
  return { homeTeamName: home, awayTeamName: away };
}

export function hasAnyOdd(o: OddsInput): boolean {
  return [o.open_home, o.open_draw, o.open_away, o.close_home, o.close_draw, o.close_away].some(
    (v) => v !== null,
  );
}

/** Runs a row reader, turning a {@link RowError} (or an invalid date) into a skipped-row reason. */
export function readRow(fn: () => RowResult & { ok: true }): RowResult {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RowError) return { ok: false, reason: err.message };
    throw err;
  }
}

/** `YYYY-MM-DD[ HH:MM[:SS]]` read as UTC. */
export function isoUtc(raw: string, name: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?Z?$/.exec(raw);
  if (!m) throw new RowError(`${name} is not YYYY-MM-DD HH:MM:SS: "${raw}"`);
  return checkedUtc(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), raw, name);
}

/** A UTC date from parts, refusing rollovers such as 31/02 or 25:00. */
export function checkedUtc(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  raw: string,
  name: string,
) {
  const t = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = new Date(t);
  if (
    date.getUTCFullYear() !== y ||
    date.getUTCMonth() !== mo - 1 ||
    date.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59 ||
    y < 1900 ||
    y > 2100
  ) {
    throw new RowError(`${name} is not a valid date: "${raw}"`);
  }
  return date;
}
