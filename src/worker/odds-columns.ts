import { parquetMetadata, parquetRead } from 'hyparquet';
import { emptyOddsRecord, ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS, type OddsRecord } from '../domain/index.js';
import { parquetFile } from '../storage/index.js';

/**
 * A run's odds records (as `decodeOdds` reads them) held column by column: a Float64Array per price
 * and time field (NaN = null; times as epoch ms) and a match id → row index map. Records decoded
 * from Parquet are ~2 KB objects each (83 MB at 37k matches); these ~0.4 KB. `get` rebuilds the record.
 */
export class OddsColumns implements ReadonlyMap<number, OddsRecord> {
  private constructor(
    private readonly index: ReadonlyMap<number, number>,
    private readonly prices: readonly Float64Array[],
    private readonly times: readonly Float64Array[],
    private readonly sources: readonly string[],
    private readonly sourceOf: Uint16Array,
  ) {}

  static from(records: readonly OddsRecord[]): OddsColumns {
    const n = records.length;
    const prices = ODDS_PRICE_FIELDS.map(() => new Float64Array(n));
    const times = ODDS_TIME_FIELDS.map(() => new Float64Array(n));
    const sources: string[] = [];
    const codes = new Map<string, number>();
    const sourceOf = new Uint16Array(n);
    const index = new Map<number, number>();
    records.forEach((r, i) => {
      index.set(r.match_id, i);
      const rec = r as unknown as Record<string, unknown>;
      ODDS_PRICE_FIELDS.forEach((f, k) => {
        const v = rec[f];
        prices[k][i] = typeof v === 'number' ? v : Number.NaN;
      });
      ODDS_TIME_FIELDS.forEach((f, k) => {
        const v = rec[f];
        times[k][i] = v instanceof Date ? v.getTime() : Number.NaN;
      });
      let code = codes.get(r.source);
      if (code === undefined) {
        code = sources.length;
        sources.push(r.source);
        codes.set(r.source, code);
      }
      sourceOf[i] = code;
    });
    if (sources.length > 0xffff) throw new RangeError('too many odds sources');
    return new OddsColumns(index, prices, times, sources, sourceOf);
  }

  /**
   * Reads `raw-data/odds.parquet` column by column into the records `decodeOdds` would read (a row
   * whose match id is not a safe integer is dropped; a price that is not a finite number and a time
   * that is not a valid date are null), without building them: no transient record per match.
   */
  static async fromParquet(buf: Buffer | Uint8Array): Promise<OddsColumns> {
    const file = parquetFile(buf);
    const metadata = parquetMetadata(file);
    const n = Number(metadata.num_rows);
    const ids = new Float64Array(n).fill(Number.NaN);
    const prices = ODDS_PRICE_FIELDS.map(() => new Float64Array(n).fill(Number.NaN));
    const times = ODDS_TIME_FIELDS.map(() => new Float64Array(n).fill(Number.NaN));
    const raw: unknown[] = new Array(n).fill(undefined);
    const priceAt = new Map<string, Float64Array>(ODDS_PRICE_FIELDS.map((f, k) => [f, prices[k]]));
    const timeAt = new Map<string, Float64Array>(ODDS_TIME_FIELDS.map((f, k) => [f, times[k]]));
    const names = new Set(metadata.schema.map((s) => s.name));
    await parquetRead({
      file,
      metadata,
      utf8: true,
      columns: ['match_id', ...ODDS_PRICE_FIELDS, ...ODDS_TIME_FIELDS, 'source'].filter((c) => names.has(c)),
      onChunk: ({ columnName, columnData, rowStart }) => {
        const price = priceAt.get(columnName);
        const time = timeAt.get(columnName);
        for (let j = 0; j < columnData.length; j++) {
          const v: unknown = columnData[j];
          const i = rowStart + j;
          if (columnName === 'match_id') ids[i] = Number(v);
          else if (columnName === 'source') raw[i] = v;
          else if (price) price[i] = typeof v === 'number' && Number.isFinite(v) ? v : Number.NaN;
          else if (time) time[i] = dateMs(v);
        }
      },
    });
    const keep: number[] = [];
    for (let i = 0; i < n; i++) if (Number.isSafeInteger(ids[i])) keep.push(i);
    const index = new Map<number, number>();
    const sources: string[] = [];
    const codes = new Map<string, number>();
    const sourceOf = new Uint16Array(keep.length);
    keep.forEach((i, row) => {
      index.set(ids[i], row);
      const s = typeof raw[i] === 'string' ? (raw[i] as string) : '';
      let code = codes.get(s);
      if (code === undefined) {
        code = sources.length;
        sources.push(s);
        codes.set(s, code);
      }
      sourceOf[row] = code;
    });
    const pick = (col: Float64Array) => Float64Array.from(keep, (i) => col[i]);
    return new OddsColumns(index, prices.map(pick), times.map(pick), sources, sourceOf);
  }

  get size(): number {
    return this.index.size;
  }

  has(matchId: number): boolean {
    return this.index.has(matchId);
  }

  *keys(): MapIterator<number> {
    yield* this.index.keys();
  }

  *values(): MapIterator<OddsRecord> {
    for (const id of this.index.keys()) yield this.get(id) as OddsRecord;
  }

  *entries(): MapIterator<[number, OddsRecord]> {
    for (const id of this.index.keys()) yield [id, this.get(id) as OddsRecord];
  }

  [Symbol.iterator](): MapIterator<[number, OddsRecord]> {
    return this.entries();
  }

  forEach(fn: (value: OddsRecord, key: number, map: ReadonlyMap<number, OddsRecord>) => void): void {
    for (const [id, rec] of this.entries()) fn(rec, id, this);
  }

  get(matchId: number): OddsRecord | undefined {
    const i = this.index.get(matchId);
    if (i === undefined) return undefined;
    const rec = emptyOddsRecord(matchId, this.sources[this.sourceOf[i]]);
    const fields = rec as unknown as Record<string, unknown>;
    ODDS_PRICE_FIELDS.forEach((f, k) => {
      const v = this.prices[k][i];
      fields[f] = Number.isNaN(v) ? null : v;
    });
    ODDS_TIME_FIELDS.forEach((f, k) => {
      const v = this.times[k][i];
      fields[f] = Number.isNaN(v) ? null : new Date(v);
    });
    return rec;
  }
}

/** `decodeOdds`' time rule as epoch ms: a valid Date, or a string read as a date; else NaN (null). */
function dateMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return new Date(v).getTime();
  return Number.NaN;
}
