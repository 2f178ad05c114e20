import { ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS } from '../domain/index.js';
import { readParquetColumns } from '../storage/index.js';
import type { OddsRow } from './types.js';
import { ArtifactInvalidError, cell, requireColumns } from './validate.js';

const ODDS_REQUIRED_COLUMNS = ['match_id', 'odd_home', 'odd_draw', 'odd_away'] as const;

function time(v: unknown, i: number, column: string): string | null {
  if (v === undefined || v === null) return null;
  if (!(v instanceof Date) || Number.isNaN(v.getTime()))
    throw new ArtifactInvalidError(`row ${i}: column ${column} must be a timestamp`);
  return v.toISOString();
}

function price(v: unknown, i: number, column: string): number | null {
  if (v === undefined || v === null) return null;
  // The cell reader names the row and the value when it is not a finite number.
  if (typeof v !== 'number' || !Number.isFinite(v)) cell.num({ [column]: v }, i, column, true);
  // Decimal odds are > 1 by definition; 0 or a negative price is a writer bug, not a market.
  if ((v as number) <= 1) throw new ArtifactInvalidError(`row ${i}: column ${column} must be > 1, got ${v}`);
  return v as number;
}

/** One validated odds row from its cells; `get` answers undefined for a column the file lacks. */
function oddsRow(get: (column: string) => unknown, i: number): OddsRow {
  const row: Record<string, number | string | null> = {
    match_id: cell.int({ match_id: get('match_id') }, i, 'match_id', false) as number,
  };
  // Goals-market prices and observation times are additive: null when absent.
  for (const c of ODDS_PRICE_FIELDS) row[c] = price(get(c), i, c);
  const source = get('source');
  row.source = source === undefined ? null : cell.str({ source }, i, 'source', true);
  for (const c of ODDS_TIME_FIELDS) row[c] = time(get(c), i, c);
  return row as unknown as OddsRow;
}

/** Validates `raw-data/odds.parquet` (docs/pipeline.md, "Artifact columns"); opening/closing columns and source are optional. */
export function parseOddsRows(raw: Record<string, unknown>[]): OddsRow[] {
  requireColumns(raw, ODDS_REQUIRED_COLUMNS, 'odds.parquet');
  const seen = new Set<number>();
  const out: OddsRow[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i];
    const row = oddsRow((c) => r[c], i);
    if (seen.has(row.match_id))
      throw new ArtifactInvalidError(`row ${i}: duplicate match_id ${row.match_id}`);
    seen.add(row.match_id);
    out[i] = row;
  }
  out.sort((a, b) => a.match_id - b.match_id);
  return out;
}

/**
 * The odds file held as its columns, validated as {@link parseOddsRows} validates it, with rows made
 * one at a time in match-id order: a record per match (~2 KB each as objects, twice over while
 * decoding) is never held for the whole file.
 */
export class OddsTable {
  private constructor(
    private readonly columns: ReadonlyMap<string, ArrayLike<unknown>>,
    /** File row numbers in match-id order. */
    private readonly order: Uint32Array,
    /** File row number of each match id. */
    private readonly index: ReadonlyMap<number, number>,
  ) {}

  static async fromParquet(bytes: Uint8Array): Promise<OddsTable> {
    const columns = await readParquetColumns(bytes);
    const n = columns.size === 0 ? 0 : (columns.values().next().value as ArrayLike<unknown>).length;
    if (n > 0) {
      const missing = ODDS_REQUIRED_COLUMNS.filter((c) => !columns.has(c));
      if (missing.length > 0)
        throw new ArtifactInvalidError(`odds.parquet: missing required column(s) ${missing.join(', ')}`);
    }
    // Every row is validated now (and dropped), so that a bad file is refused before anything is built.
    const index = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const id = rowAt(columns, i).match_id;
      if (index.has(id)) throw new ArtifactInvalidError(`row ${i}: duplicate match_id ${id}`);
      index.set(id, i);
    }
    const order = Uint32Array.from(index.values()).sort((a, b) => rowId(columns, a) - rowId(columns, b));
    return new OddsTable(columns, order, index);
  }

  get length(): number {
    return this.order.length;
  }

  /** The row of a match, or undefined. */
  get(matchId: number): OddsRow | undefined {
    const i = this.index.get(matchId);
    return i === undefined ? undefined : rowAt(this.columns, i);
  }

  /** The rows in match-id order, made as they are visited. */
  *rows(): Generator<OddsRow> {
    for (let k = 0; k < this.order.length; k++) yield rowAt(this.columns, this.order[k]);
  }
}

function rowAt(columns: ReadonlyMap<string, ArrayLike<unknown>>, i: number): OddsRow {
  return oddsRow((c) => columns.get(c)?.[i], i);
}

/** The match id of a validated row. */
function rowId(columns: ReadonlyMap<string, ArrayLike<unknown>>, i: number): number {
  return Number(columns.get('match_id')![i]);
}
