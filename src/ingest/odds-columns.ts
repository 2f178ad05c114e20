import { parquetMetadata } from 'hyparquet';
import {
  emptyOddsRecord,
  ODDS_1X2_FIELDS,
  ODDS_GOALS_FIELDS,
  ODDS_PRICE_FIELDS,
  ODDS_TIME_FIELDS,
  type OddsRecord,
} from '../domain/index.js';
import {
  type ParquetColumn,
  parquetFile,
  readColumnByColumn,
  writeParquetColumns,
} from '../storage/index.js';

/** Columns of `raw-data/odds.parquet` (docs/pipeline.md); everything after `source` is additive, nullable. */
export const ODDS_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  ...ODDS_1X2_FIELDS.map((name) => ({ name, type: 'double' as const })),
  { name: 'source', type: 'string' },
  ...ODDS_GOALS_FIELDS.map((name) => ({ name, type: 'double' as const })),
  ...ODDS_TIME_FIELDS.map((name) => ({ name, type: 'timestamp' as const })),
];

/** A code per distinct source, in order of first use; at most `limit + 1` codes. */
export class SourceCodes {
  readonly names: string[] = [];
  private readonly codes = new Map<string, number>();

  constructor(private readonly limit = 0xffff) {}

  code(name: string): number {
    let c = this.codes.get(name);
    if (c === undefined) {
      c = this.names.length;
      if (c > this.limit) throw new RangeError('too many odds sources');
      this.names.push(name);
      this.codes.set(name, c);
    }
    return c;
  }
}

/** A price or time column: NaN = null; `null` when every row is null (a market no source quotes). */
type Column = Float64Array | null;

const cell = (col: Column, i: number): number => (col ? col[i] : Number.NaN);

/** Odds records column by column, a tenth of a record's size. Read-only once {@link OddsColumns.fit}. */
export class OddsColumns {
  length = 0;
  ids: Float64Array;
  prices: Column[] = ODDS_PRICE_FIELDS.map(() => null);
  /** One column per {@link ODDS_TIME_FIELDS} entry, epoch ms. */
  times: Column[] = ODDS_TIME_FIELDS.map(() => null);
  sourceOf: Uint16Array;
  private readonly codes = new SourceCodes();
  readonly sources: readonly string[] = this.codes.names;
  private readonly index = new Map<number, number>();

  constructor(capacity = 1024) {
    this.ids = new Float64Array(Math.max(1, capacity));
    this.sourceOf = new Uint16Array(this.ids.length);
  }

  static from(records: Iterable<OddsRecord>, capacity = 1024): OddsColumns {
    const c = new OddsColumns(capacity);
    for (const r of records) c.push(r);
    return c.fit();
  }

  /** `raw-data/odds.parquet` column by column: a row without a safe integer match id is dropped. */
  static async fromParquet(buf: Buffer | Uint8Array): Promise<OddsColumns> {
    const file = parquetFile(buf);
    const metadata = parquetMetadata(file);
    const n = Number(metadata.num_rows);
    const read = new OddsColumns(n);
    read.ids.fill(Number.NaN);
    // Code 0: the source of a row when the file has no source column.
    read.codes.code('');
    const priceAt = new Map<string, number>(ODDS_PRICE_FIELDS.map((f, k) => [f, k]));
    const timeAt = new Map<string, number>(ODDS_TIME_FIELDS.map((f, k) => [f, k]));
    const columns = ['match_id', ...ODDS_PRICE_FIELDS, ...ODDS_TIME_FIELDS, 'source'];
    await readColumnByColumn(file, metadata, columns, ({ columnName, columnData, rowStart }) => {
      const price = priceAt.get(columnName);
      const time = timeAt.get(columnName);
      for (let j = 0; j < columnData.length; j++) {
        const v: unknown = columnData[j];
        const i = rowStart + j;
        if (columnName === 'match_id') read.ids[i] = Number(v);
        else if (columnName === 'source') read.sourceOf[i] = read.codes.code(typeof v === 'string' ? v : '');
        else if (price !== undefined)
          read.set(read.prices, price, i, typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN);
        // `decodeOdds`' time rule: a Date, or a string read as a date.
        else if (time !== undefined)
          read.set(
            read.times,
            time,
            i,
            v instanceof Date || typeof v === 'string' ? new Date(v).getTime() : Number.NaN,
          );
      }
    });
    const out = new OddsColumns(n);
    for (let i = 0; i < n; i++) if (Number.isSafeInteger(read.ids[i])) out.pushRow(read, i);
    return out.fit();
  }

  get size(): number {
    return this.index.size;
  }

  *values(): Generator<OddsRecord> {
    for (const i of this.index.values()) yield this.record(i);
  }

  get(matchId: number): OddsRecord | undefined {
    const i = this.index.get(matchId);
    return i === undefined ? undefined : this.record(i);
  }

  record(i: number): OddsRecord {
    const rec = emptyOddsRecord(this.ids[i], this.sources[this.sourceOf[i]]);
    const fields = rec as unknown as Record<string, unknown>;
    for (let k = 0; k < ODDS_PRICE_FIELDS.length; k++) {
      const v = cell(this.prices[k], i);
      fields[ODDS_PRICE_FIELDS[k]] = Number.isNaN(v) ? null : v;
    }
    for (let k = 0; k < ODDS_TIME_FIELDS.length; k++) {
      const v = cell(this.times[k], i);
      fields[ODDS_TIME_FIELDS[k]] = Number.isNaN(v) ? null : new Date(v);
    }
    return rec;
  }

  /** Appends a record: a price that is not a number and a time that is not a Date are null. */
  push(r: OddsRecord): void {
    const i = this.next(r.match_id, r.source);
    const rec = r as unknown as Record<string, unknown>;
    for (let k = 0; k < ODDS_PRICE_FIELDS.length; k++) {
      const v = rec[ODDS_PRICE_FIELDS[k]];
      this.set(this.prices, k, i, typeof v === 'number' ? v : Number.NaN);
    }
    for (let k = 0; k < ODDS_TIME_FIELDS.length; k++) {
      const v = rec[ODDS_TIME_FIELDS[k]];
      this.set(this.times, k, i, v instanceof Date ? v.getTime() : Number.NaN);
    }
  }

  pushRow(f: OddsColumns, j: number): void {
    const i = this.next(f.ids[j], f.sources[f.sourceOf[j]]);
    for (let k = 0; k < this.prices.length; k++) this.set(this.prices, k, i, cell(f.prices[k], j));
    for (let k = 0; k < this.times.length; k++) this.set(this.times, k, i, cell(f.times[k], j));
  }

  /** A column is allocated (every row null) at its first value: one that holds none stays null. */
  private set(cols: Column[], k: number, i: number, v: number): void {
    if (!cols[k]) {
      if (Number.isNaN(v)) return;
      cols[k] = new Float64Array(this.ids.length).fill(Number.NaN);
    }
    cols[k][i] = v;
  }

  private next(matchId: number, source: string): number {
    if (this.length === this.ids.length) {
      const c = this.ids.length * 2;
      const grownColumn = (a: Column): Column => a && grown(a, c).fill(Number.NaN, a.length);
      this.ids = grown(this.ids, c);
      this.prices = this.prices.map(grownColumn);
      this.times = this.times.map(grownColumn);
      this.sourceOf = grown(this.sourceOf, c);
    }
    const i = this.length++;
    this.ids[i] = matchId;
    this.sourceOf[i] = this.codes.code(source);
    this.index.set(matchId, i);
    return i;
  }

  /** The columns cut to the rows held (what a cache keeps). */
  fit(): this {
    const n = this.length;
    const fit = <T extends Float64Array | Uint16Array>(a: T): T =>
      a.length === n ? a : (a.slice(0, n) as T);
    const fitColumn = (a: Column): Column => a && fit(a);
    this.ids = fit(this.ids);
    this.prices = this.prices.map(fitColumn);
    this.times = this.times.map(fitColumn);
    this.sourceOf = fit(this.sourceOf);
    return this;
  }

  sameRow(i: number, other: OddsColumns, j: number): boolean {
    if (this.ids[i] !== other.ids[j]) return false;
    if (this.sources[this.sourceOf[i]] !== other.sources[other.sourceOf[j]]) return false;
    return same(this.prices, i, other.prices, j) && same(this.times, i, other.times, j);
  }

  encode(): Buffer {
    const nullable = (col: Column) => (i: number) => (col && !Number.isNaN(col[i]) ? col[i] : null);
    const column = new Map<string, (i: number) => unknown>([
      ['match_id', (i) => this.ids[i]],
      ['source', (i) => this.sources[this.sourceOf[i]]],
      ...ODDS_PRICE_FIELDS.map((f, k) => [f, nullable(this.prices[k])] as const),
      ...ODDS_TIME_FIELDS.map((f, k) => [f, nullable(this.times[k])] as const),
    ]);
    return writeParquetColumns(ODDS_COLUMNS, this.length, (name) => column.get(name) ?? (() => null));
  }

  /** `incoming` merged into `base` by match id, sorted by it; null when `base` holds every row already. */
  static merge(base: OddsColumns | null, incoming: OddsColumns): OddsColumns | null {
    const baseRows = base?.length ?? 0;
    const known = (id: number, j: number) => {
      const i = base?.index.get(id);
      return i !== undefined && base?.sameRow(i, incoming, j);
    };
    if ([...incoming.index].every(([id, j]) => known(id, j))) return null;
    // Picks: a base row `i` as `i`, an incoming row `j` as `baseRows + j`.
    const picks: number[] = [];
    if (base) for (const [id, i] of base.index) if (!incoming.index.has(id)) picks.push(i);
    for (const j of incoming.index.values()) picks.push(baseRows + j);
    const idOf = (p: number) => (p < baseRows ? (base as OddsColumns).ids[p] : incoming.ids[p - baseRows]);
    const order = Float64Array.from(picks).sort((a, b) => idOf(a) - idOf(b));
    const out = new OddsColumns(order.length);
    for (const p of order) {
      if (p < baseRows) out.pushRow(base as OddsColumns, p);
      else out.pushRow(incoming, p - baseRows);
    }
    return out.fit();
  }
}

function same(a: readonly Column[], i: number, b: readonly Column[], j: number): boolean {
  for (let k = 0; k < a.length; k++) {
    const x = cell(a[k], i);
    const y = cell(b[k], j);
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return false;
  }
  return true;
}

export function grown<T extends Float64Array | Uint8Array | Uint16Array | Uint32Array>(
  a: T,
  length: number,
): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}
