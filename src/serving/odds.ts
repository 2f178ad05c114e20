import { ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS } from '../domain/index.js';
import type { OddsRow } from './types.js';
import { ArtifactInvalidError, cell, requireColumns } from './validate.js';

export const ODDS_REQUIRED_COLUMNS = ['match_id', 'odd_home', 'odd_draw', 'odd_away'] as const;

function time(r: Record<string, unknown>, i: number, column: string): string | null {
  const v = r[column];
  if (v === undefined || v === null) return null;
  if (!(v instanceof Date) || Number.isNaN(v.getTime()))
    throw new ArtifactInvalidError(`row ${i}: column ${column} must be a timestamp`);
  return v.toISOString();
}

function price(r: Record<string, unknown>, i: number, column: string): number | null {
  if (r[column] === undefined) return null;
  const v = cell.num(r, i, column, true);
  // Decimal odds are > 1 by definition; 0 or a negative price is a writer bug, not a market.
  if (v !== null && v <= 1)
    throw new ArtifactInvalidError(`row ${i}: column ${column} must be > 1, got ${v}`);
  return v;
}

/** Validates `raw-data/odds.parquet` (docs/pipeline.md, "Artifact columns"); opening/closing columns and source are optional. */
export function parseOddsRows(raw: Record<string, unknown>[]): OddsRow[] {
  requireColumns(raw, ODDS_REQUIRED_COLUMNS, 'odds.parquet');
  const seen = new Set<number>();
  const out: OddsRow[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i];
    const matchId = cell.int(r, i, 'match_id', false) as number;
    if (seen.has(matchId)) throw new ArtifactInvalidError(`row ${i}: duplicate match_id ${matchId}`);
    seen.add(matchId);
    const row: Record<string, number | string | null> = { match_id: matchId };
    // Goals-market prices and observation times are additive: null when absent.
    for (const c of ODDS_PRICE_FIELDS) row[c] = price(r, i, c);
    row.source = r.source === undefined ? null : cell.str(r, i, 'source', true);
    for (const c of ODDS_TIME_FIELDS) row[c] = time(r, i, c);
    out[i] = row as unknown as OddsRow;
  }
  out.sort((a, b) => a.match_id - b.match_id);
  return out;
}
