import { ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS } from '../domain/index.js';
import type { OddsRecord } from '../schemas/index.js';
import { readParquetColumns } from '../storage/index.js';
import { ArtifactInvalidError, cell } from './validate.js';

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
function oddsRow(get: (column: string) => unknown, i: number): OddsRecord {
  const row: Record<string, number | string | null> = {
    match_id: cell.int({ match_id: get('match_id') }, i, 'match_id', false) as number,
  };
  // Goals-market prices and observation times are additive: null when absent.
  for (const c of ODDS_PRICE_FIELDS) row[c] = price(get(c), i, c);
  const source = get('source');
  row.source = source === undefined ? null : cell.str({ source }, i, 'source', true);
  for (const c of ODDS_TIME_FIELDS) row[c] = time(get(c), i, c);
  return row as unknown as OddsRecord;
}

/** `raw-data/odds.parquet` (docs/pipeline.md) validated and held as typed columns (NaN for null). */
export class OddsTable {
  private constructor(
    private readonly ids: Float64Array,
    private readonly prices: readonly Float64Array[],
    private readonly times: readonly Float64Array[],
    /** Index into `sources`; -1 for null (or no source column). */
    private readonly sourceOf: Int32Array,
    private readonly sources: readonly string[],
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
    const ids = new Float64Array(n);
    const prices = ODDS_PRICE_FIELDS.map(() => new Float64Array(n));
    const times = ODDS_TIME_FIELDS.map(() => new Float64Array(n));
    const sourceOf = new Int32Array(n);
    const sources = new Map<string, number>();
    // Every row is validated now, so that a bad file is refused before anything is built.
    const index = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const row = oddsRow((c) => columns.get(c)?.[i], i) as unknown as Record<string, unknown>;
      const id = row.match_id as number;
      if (index.has(id)) throw new ArtifactInvalidError(`row ${i}: duplicate match_id ${id}`);
      index.set(id, i);
      ids[i] = id;
      ODDS_PRICE_FIELDS.forEach((c, k) => {
        prices[k][i] = (row[c] as number | null) ?? Number.NaN;
      });
      ODDS_TIME_FIELDS.forEach((c, k) => {
        const t = columns.get(c)?.[i];
        times[k][i] = t instanceof Date ? t.getTime() : Number.NaN;
      });
      const source = row.source as string | null;
      if (source !== null && !sources.has(source)) sources.set(source, sources.size);
      sourceOf[i] = source === null ? -1 : (sources.get(source) as number);
    }
    const order = Uint32Array.from(index.values()).sort((a, b) => ids[a] - ids[b]);
    return new OddsTable(ids, prices, times, sourceOf, [...sources.keys()], order, index);
  }

  get length(): number {
    return this.order.length;
  }

  get(matchId: number): OddsRecord | undefined {
    const i = this.index.get(matchId);
    return i === undefined ? undefined : this.rowAt(i);
  }

  *rows(): Generator<OddsRecord> {
    for (let k = 0; k < this.order.length; k++) yield this.rowAt(this.order[k]);
  }

  /** Row `i` with the fields in the order {@link oddsRow} gives them. */
  private rowAt(i: number): OddsRecord {
    const row: Record<string, number | string | null> = { match_id: this.ids[i] };
    ODDS_PRICE_FIELDS.forEach((c, k) => {
      const v = this.prices[k][i];
      row[c] = Number.isNaN(v) ? null : v;
    });
    const s = this.sourceOf[i];
    row.source = s < 0 ? null : this.sources[s];
    ODDS_TIME_FIELDS.forEach((c, k) => {
      const t = this.times[k][i];
      row[c] = Number.isNaN(t) ? null : new Date(t).toISOString();
    });
    return row as unknown as OddsRecord;
  }
}
