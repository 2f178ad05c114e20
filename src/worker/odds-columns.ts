import { ODDS_PRICE_FIELDS, ODDS_TIME_FIELDS, type OddsRecord } from '../domain/index.js';

/**
 * A run's odds records (as `decodeOdds` reads them) held column by column: a Float64Array per price
 * and time field (NaN = null; times as epoch ms) and a match id → row index map. Records decoded
 * from Parquet are ~2 KB objects each (83 MB at 37k matches); these ~0.4 KB. `get` rebuilds the record.
 */
export class OddsColumns implements Pick<ReadonlyMap<number, OddsRecord>, 'get' | 'has' | 'size'> {
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

  get size(): number {
    return this.index.size;
  }

  has(matchId: number): boolean {
    return this.index.has(matchId);
  }

  get(matchId: number): OddsRecord | undefined {
    const i = this.index.get(matchId);
    if (i === undefined) return undefined;
    const rec: Record<string, unknown> = { match_id: matchId };
    ODDS_PRICE_FIELDS.forEach((f, k) => {
      const v = this.prices[k][i];
      rec[f] = Number.isNaN(v) ? null : v;
    });
    ODDS_TIME_FIELDS.forEach((f, k) => {
      const v = this.times[k][i];
      rec[f] = Number.isNaN(v) ? null : new Date(v);
    });
    rec.source = this.sources[this.sourceOf[i]];
    return rec as unknown as OddsRecord;
  }
}
