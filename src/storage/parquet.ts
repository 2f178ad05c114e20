import type { ColumnData, FileMetaData, SchemaElement } from 'hyparquet';
import { parquetMetadata, parquetRead, parquetSchema } from 'hyparquet';
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import { rowShape } from '../domain/index.js';

/** Column types a matchcast Parquet file may hold. Every column is nullable. */
type ParquetColumnType = 'int32' | 'int64' | 'double' | 'boolean' | 'string' | 'timestamp';

export interface ParquetColumn {
  name: string;
  /** `int64` reads back as a `number` (safe integers only); `timestamp` is UTC INT64 ms, read as a `Date`. */
  type: ParquetColumnType;
}

export type ParquetRow = Record<string, unknown>;

interface WriteParquetOptions {
  /** Rows per row group. Default `100000` (one group for every artifact we write today). */
  rowGroupSize?: number;
}

const ELEMENTS: Record<ParquetColumnType, Omit<SchemaElement, 'name'>> = {
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  double: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  // The converted type too, for old readers: TIMESTAMP_MILLIS is by definition UTC-adjusted.
  timestamp: {
    type: 'INT64',
    converted_type: 'TIMESTAMP_MILLIS',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
  },
};

/** The Parquet schema element of a column (also used by streamed writers outside this module). */
export function parquetSchemaElement(col: Pick<ParquetColumn, 'name' | 'type'>): SchemaElement {
  return { name: col.name, repetition_type: 'OPTIONAL', ...ELEMENTS[col.type] };
}

/** Per column type: the physical value the writer expects, or undefined when `v` does not fit. */
const PHYSICAL: Record<ParquetColumnType, (v: unknown) => unknown> = {
  int32: (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : undefined,
  int64: (v) =>
    typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : typeof v === 'bigint' ? v : undefined,
  double: (v) => (typeof v === 'number' ? v : undefined),
  boolean: (v) => (typeof v === 'boolean' ? v : undefined),
  string: (v) => (typeof v === 'string' ? v : undefined),
  timestamp: (v) => {
    const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Number.NaN;
    return Number.isSafeInteger(ms) ? BigInt(ms) : undefined;
  },
};

/** One column as hyparquet-writer reads it (`length`, `slice`): converted and validated slice by slice. */
function columnData(col: ParquetColumn, n: number, value: (i: number) => unknown) {
  const toPhysical = PHYSICAL[col.type];
  const slice = (start: number, end: number): unknown[] => {
    const out = new Array<unknown>(end - start);
    for (let i = start; i < end; i++) {
      const v = value(i);
      const p = v === null || v === undefined ? null : toPhysical(v);
      if (p === undefined)
        throw new TypeError(
          `parquet column "${col.name}" (${col.type}), row ${i}: unsupported value ${String(v)}`,
        );
      out[i - start] = p;
    }
    return out;
  };
  return { length: n, slice };
}

/**
 * Writes rows to a Parquet file (snappy) with an explicit schema; a missing field is null. A value that
 * does not fit its column type throws a `TypeError` naming column and row.
 */
export function writeParquet(
  columns: readonly ParquetColumn[],
  rows: readonly ParquetRow[],
  options: WriteParquetOptions = {},
): Buffer {
  return writeParquetColumns(columns, rows.length, (name) => (i) => rows[i]?.[name], options);
}

/** {@link writeParquet} from columns: `cell(name)(i)` is read one row group of one column at a time. */
export function writeParquetColumns(
  columns: readonly ParquetColumn[],
  rows: number,
  cell: (name: string) => (i: number) => unknown,
  options: WriteParquetOptions = {},
): Buffer {
  const twice = columns.find((c, i) => columns.findIndex((d) => d.name === c.name) !== i);
  if (twice) throw new TypeError(`parquet column "${twice.name}" appears twice`);
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map(parquetSchemaElement)],
    columnData: columns.map((c) => ({ name: c.name, data: columnData(c, rows, cell(c.name)) as never })),
    rowGroupSize: options.rowGroupSize ?? 100_000,
    kvMetadata: [],
    createdBy: 'matchcast',
  });
  return Buffer.from(writer.getBuffer());
}

/** The file as the ArrayBuffer hyparquet reads; copied only when `buf` is a view into a larger pool. */
export function parquetFile(buf: Buffer | Uint8Array): ArrayBuffer {
  return buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength
    ? (buf.buffer as ArrayBuffer)
    : (buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
}

/**
 * Hands over the named columns (absent ones skipped) chunk by chunk, one column at a time: hyparquet
 * decodes every column of a read before handing any over.
 */
export async function readColumnByColumn(
  file: ArrayBuffer,
  metadata: FileMetaData,
  names: readonly string[],
  onChunk: (chunk: ColumnData) => void,
): Promise<void> {
  const present = new Set(metadata.schema.map((s) => s.name));
  for (const name of names) {
    if (present.has(name)) await parquetRead({ file, metadata, utf8: true, columns: [name], onChunk });
  }
}

/** An INT64 cell as a number; outside the safe-integer range it throws rather than lose precision. */
function safeNumber(column: string, v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`parquet column "${column}": ${v} is outside the safe integer range`);
  }
  return Number(v);
}

/** Every row as a plain object: INT64 as `number` (beyond safe integers throws), timestamps as `Date`. */
export async function readParquet(buf: Buffer | Uint8Array): Promise<ParquetRow[]> {
  const { names, n, columns } = await readColumns(buf);
  const newRow = rowShape(names);
  const values = names.map((name) => columns.get(name) ?? []);
  const rows: ParquetRow[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row = newRow();
    for (let c = 0; c < names.length; c++) row[names[c]!] = values[c]![i] ?? null;
    rows[i] = row;
  }
  return rows;
}

/** {@link readParquet} as each column's values in row order, with no object per row. */
export async function readParquetColumns(buf: Buffer | Uint8Array): Promise<Map<string, unknown[]>> {
  return (await readColumns(buf)).columns;
}

/** The file's columns in schema order, its row count and each column's values. */
async function readColumns(
  buf: Buffer | Uint8Array,
): Promise<{ names: string[]; n: number; columns: Map<string, unknown[]> }> {
  const file = parquetFile(buf);
  const metadata = parquetMetadata(file);
  const n = Number(metadata.num_rows);
  // Top-level columns only: the elements under a nested (struct, list, map) column are not columns.
  const names = parquetSchema(metadata).children.map((child) => child.element.name);
  const columns = new Map<string, unknown[]>();
  await readColumnByColumn(file, metadata, names, ({ columnName, columnData, rowStart }) => {
    const col = columns.get(columnName) ?? new Array(n).fill(null);
    columns.set(columnName, col);
    for (let j = 0; j < columnData.length; j++) {
      const v: unknown = columnData[j];
      col[rowStart + j] = typeof v === 'bigint' ? safeNumber(columnName, v) : v;
    }
  });
  return { names, n, columns };
}
