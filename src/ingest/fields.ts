import type { MatchUpsert } from '../db/index.js';
import {
  type ErrorCode,
  FIELD_LIMITS,
  INSTANT_FORMAT,
  type OddsKind,
  type OddsMarket,
  oddsImplausibility,
  parseInstant,
} from '../domain/index.js';
import type { PriceSet, RowRejection } from './types.js';

/** A field of the current row by header name: trimmed text, or undefined when the file has no such column. */
export type Field = (name: string) => string | undefined;

/** Thrown while reading one row; the CSV reader turns it into a skipped row with this code and reason. */
export class RowError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode = 'MC_ERR_INVALID_ROW',
  ) {
    super(message);
  }
}

export function dateError(name: string, raw: string, format: string): RowError {
  return new RowError(
    `${name} is not a valid date (${format}): "${raw.slice(0, 40)}"`,
    'MC_ERR_INVALID_DATE',
  );
}

export function required(get: Field, name: string): string {
  const v = get(name);
  if (v === undefined || v === '') throw new RowError(`missing ${name}`);
  return v;
}

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

/** One market's prices, true when added; some missing or implausible is a rejection, the row still loads. */
export function marketPrices(
  get: Field,
  market: OddsMarket,
  kind: OddsKind,
  columns: readonly string[],
  out: PriceSet[],
  rejected: RowRejection[],
): boolean {
  const raw = columns.map((c) => get(c));
  if (raw.every((v) => v === undefined || v === '')) return false;
  const missing = columns.filter((_, i) => raw[i] === undefined || raw[i] === '');
  if (missing.length > 0) {
    rejected.push({
      market,
      kind,
      reason: `incomplete ${market} ${kind} prices: ${missing.join(', ')} missing`,
    });
    return false;
  }
  const prices: number[] = [];
  for (let i = 0; i < columns.length; i++) {
    const v = raw[i] as string;
    // Number('') is 0 and Number('0x10') is 16: only plain decimal notation is a price.
    const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) ? Number(v) : Number.NaN;
    if (Number.isNaN(n)) {
      rejected.push({ market, kind, reason: `${columns[i]} is not a decimal odd: "${v.slice(0, 40)}"` });
      return false;
    }
    prices.push(n);
  }
  const why = oddsImplausibility(market, prices);
  if (why) {
    rejected.push({ market, kind, reason: `${columns.join('/')}: ${why}` });
    return false;
  }
  out.push({ market, kind, prices });
  return true;
}

/** Invisible characters that make identical-looking names two teams (ZWJ/ZWNJ kept: scripts need them). */
const INVISIBLE = /[\p{Cc}\u00ad\u200b\u2060]/gu;

/** Collapses inner whitespace (tabs, non-breaking spaces, runs), drops invisible characters, trims; Unicode NFC. */
export function cleanName(raw: string): string {
  return raw.normalize('NFC').replace(/\s+/gu, ' ').replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim();
}

/** `raw` cleaned; refused when empty or over `limit` characters. */
function cleanText(raw: string, column: string, limit: number, label = column): string {
  const v = cleanName(raw);
  if (v === '') throw new RowError(`missing ${column}`);
  if (v.length > limit) throw new RowError(`${label} is longer than ${limit} characters (${v.length})`);
  return v;
}

export function name(get: Field, column: string, limit: number): string {
  return cleanText(required(get, column), column, limit);
}

export function teams(home: string, away: string): { homeTeamName: string; awayTeamName: string } {
  const h = cleanText(home, 'home team', FIELD_LIMITS.teamName, 'home team name');
  const a = cleanText(away, 'away team', FIELD_LIMITS.teamName, 'away team name');
  if (h.toLowerCase() === a.toLowerCase()) throw new RowError(`home and away team are both "${h}"`);
  return { homeTeamName: h, awayTeamName: a };
}

/** An instant column, read by the one strict parser (`parseInstant`, src/domain/instant.ts). */
export function instant(raw: string, name: string): Date {
  const d = parseInstant(raw);
  if (!d) throw dateError(name, raw, INSTANT_FORMAT);
  return d;
}
