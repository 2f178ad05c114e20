import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { parquetSchemaElement } from '../storage/index.js';
import type { AnalystColumn, AnalystRow } from './analyst-columns.js';

/** Export formats: CSV (RFC 4180, UTF-8, header line) and Parquet (snappy, typed columns). */
export const EXPORT_FORMATS = ['csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows per encoded chunk (and per Parquet row group): memory stays bounded by one chunk. */
export const EXPORT_CHUNK_ROWS = 5_000;

/** A CSV cell: ISO 8601 times, numbers in full (round-trip) precision, empty for null. */
export function csvCell(v: AnalystRow[string] | undefined): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The CSV text of `rows`, one chunk of {@link EXPORT_CHUNK_ROWS} rows at a time, header first. */
export async function* csvChunks(
  columns: readonly AnalystColumn[],
  rows: Iterable<AnalystRow>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(`${columns.map((c) => c.name).join(',')}\n`, 'utf8');
  let lines: string[] = [];
  for (const r of rows) {
    lines.push(columns.map((c) => csvCell(r[c.name])).join(','));
    if (lines.length >= EXPORT_CHUNK_ROWS) {
      yield Buffer.from(`${lines.join('\n')}\n`, 'utf8');
      lines = [];
    }
  }
  if (lines.length > 0) yield Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

function physical(col: AnalystColumn, v: AnalystRow[string] | undefined): unknown {
  if (v === null || v === undefined) return null;
  switch (col.type) {
    case 'int64':
      return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null;
    case 'int32':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'double':
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'string':
      return typeof v === 'string' ? v : String(v);
    case 'timestamp':
      return v instanceof Date && !Number.isNaN(v.getTime()) ? BigInt(v.getTime()) : null;
  }
}

/** A byte writer whose bytes are handed out after each row group instead of accumulating. */
class DrainingWriter extends ByteWriter {
  private drained: Buffer[] = [];

  flush(): void {
    this.drained.push(Buffer.from(new Uint8Array(this.buffer, 0, this.index)));
    this.index = 0;
  }

  take(): Buffer[] {
    const out = this.drained;
    this.drained = [];
    return out;
  }
}

/** The Parquet file of `rows`: each row group yielded once encoded, then the footer. */
export async function* parquetChunks(
  columns: readonly AnalystColumn[],
  rows: Iterable<AnalystRow>,
  metadata: Record<string, string> = {},
): AsyncGenerator<Buffer> {
  const writer = new DrainingWriter();
  const pw = new ParquetWriter({
    writer,
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map(parquetSchemaElement)],
    kvMetadata: Object.entries(metadata).map(([key, value]) => ({ key, value })),
    createdBy: 'matchcast',
  });
  let batch: AnalystRow[] = [];
  const writeBatch = async () => {
    const columnData = columns.map((c) => ({
      name: c.name,
      data: batch.map((r) => physical(c, r[c.name])) as never,
    }));
    await pw.write({ columnData, rowGroupSize: batch.length });
    batch = [];
  };
  for (const r of rows) {
    batch.push(r);
    if (batch.length >= EXPORT_CHUNK_ROWS) {
      await writeBatch();
      for (const b of writer.take()) yield b;
    }
  }
  if (batch.length > 0) await writeBatch();
  await pw.finish();
  writer.flush();
  for (const b of writer.take()) yield b;
}
