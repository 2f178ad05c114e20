import { parquetMetadata } from 'hyparquet';
import { parquetFile, readColumnByColumn } from '../storage/index.js';
import { emptyFeatureRow, COLUMN_KINDS as KINDS, type ColumnKind as Kind } from './feature-row.js';

/** A column: numbers (dates as epoch ms) with a null mask, or dictionary codes of strings. */
interface Column {
  kind: Kind;
  values: Float64Array;
  /** 1 where the value is null; absent when the column has no null. */
  nulls?: Uint8Array;
  /** Strings of a `str` column (values are indexes into it). */
  dict?: string[];
}

/** Epoch ms of a date cell as hyparquet reads it; NaN when it is none. */
export function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' || typeof v === 'string') return new Date(v).getTime();
  if (typeof v === 'bigint') return new Date(Number(v)).getTime();
  return Number.NaN;
}

/**
 * The feature rows of a run held column by column (a Float64Array each, a null mask beside those with
 * nulls, dictionary codes for strings): about 8 bytes a value; `get` builds the row asked for.
 */
export class FeatureColumns implements ReadonlyMap<number, Record<string, unknown>> {
  private constructor(
    private readonly columns: ReadonlyMap<string, Column>,
    private readonly index: ReadonlyMap<number, number>,
  ) {}

  static async fromParquet(buf: Buffer | Uint8Array): Promise<FeatureColumns> {
    const file = parquetFile(buf);
    const metadata = parquetMetadata(file);
    const n = Number(metadata.num_rows);
    const columns = new Map<string, Column>();
    const dicts = new Map<string, Map<string, number>>();
    for (const [name, kind] of KINDS) {
      columns.set(name, { kind, values: new Float64Array(n), ...(kind === 'str' ? { dict: [] } : {}) });
      if (kind === 'str') dicts.set(name, new Map());
    }
    const present = new Set<string>();
    await readColumnByColumn(
      file,
      metadata,
      KINDS.map(([name]) => name),
      ({ columnName, columnData, rowStart }) => {
        const col = columns.get(columnName);
        if (!col) return;
        present.add(columnName);
        for (let j = 0; j < columnData.length; j++) {
          put(col, dicts.get(columnName), rowStart + j, columnData[j]);
        }
      },
    );
    // A column absent from the file (an older layout) reads as an absent value.
    for (const [name, col] of columns) {
      if (present.has(name)) continue;
      for (let i = 0; i < n; i++) put(col, dicts.get(name), i, undefined);
    }
    const ids = columns.get('match_id')!.values;
    const index = new Map<number, number>();
    for (let i = 0; i < n; i++) index.set(ids[i], i);
    return new FeatureColumns(columns, index);
  }

  get size(): number {
    return this.index.size;
  }

  has(matchId: number): boolean {
    return this.index.has(matchId);
  }

  get(matchId: number): Record<string, unknown> | undefined {
    const i = this.index.get(matchId);
    return i === undefined ? undefined : this.row(i);
  }

  value(matchId: number, name: string): unknown {
    const i = this.index.get(matchId);
    const col = this.columns.get(name);
    return i === undefined || !col ? undefined : read(col, i);
  }

  *keys(): MapIterator<number> {
    yield* this.index.keys();
  }

  *values(): MapIterator<Record<string, unknown>> {
    for (const i of this.index.values()) yield this.row(i);
  }

  *entries(): MapIterator<[number, Record<string, unknown>]> {
    for (const [id, i] of this.index) yield [id, this.row(i)];
  }

  [Symbol.iterator](): MapIterator<[number, Record<string, unknown>]> {
    return this.entries();
  }

  forEach(fn: Parameters<ReadonlyMap<number, Record<string, unknown>>['forEach']>[0]): void {
    for (const [id, row] of this.entries()) fn(row, id, this);
  }

  private row(i: number): Record<string, unknown> {
    const out = emptyFeatureRow();
    for (const [name, col] of this.columns) out[name] = read(col, i);
    return out;
  }
}

function put(col: Column, dict: Map<string, number> | undefined, i: number, v: unknown): void {
  const { kind } = col;
  if (kind === 'str') {
    const s = String(v ?? '');
    let code = dict!.get(s);
    if (code === undefined) {
      code = col.dict!.push(s) - 1;
      dict!.set(s, code);
    }
    col.values[i] = code;
  } else if (kind === 'feature' ? typeof v !== 'number' : kind.endsWith('OrNull') && v == null) {
    col.nulls ??= new Uint8Array(col.values.length);
    col.nulls[i] = 1;
  } else if (kind === 'bool') col.values[i] = v ? 1 : 0;
  else col.values[i] = kind === 'date' || kind === 'dateOrNull' ? timeOf(v) : Number(v);
}

function read(col: Column, i: number): unknown {
  if (col.nulls?.[i] === 1) return null;
  const v = col.values[i];
  switch (col.kind) {
    case 'bool':
      return v === 1;
    case 'date':
    case 'dateOrNull':
      return new Date(v);
    case 'str':
      return col.dict![v];
    default:
      return v;
  }
}
