import { parquetMetadata } from 'hyparquet';
import {
  isOddsKind,
  isOddsMarket,
  MARKET_OUTCOMES,
  ODDS_KINDS,
  ODDS_MARKETS,
  type OddsMarket,
  type OddsObservation,
  OddsTimeline,
} from '../domain/index.js';
import {
  type ParquetColumn,
  parquetFile,
  readColumnByColumn,
  writeParquetColumns,
} from '../storage/index.js';
import { grown, SourceCodes } from './odds-columns.js';

const NONE = 255;

/** Columns of `raw-data/odds_observations.parquet`: one row per observation; `price_3` is null for two-way markets. */
export const OBSERVATION_COLUMNS: readonly ParquetColumn[] = [
  { name: 'match_id', type: 'int64' },
  { name: 'market', type: 'string' },
  { name: 'kind', type: 'string' },
  { name: 'observed_at', type: 'timestamp' },
  { name: 'source', type: 'string' },
  { name: 'price_1', type: 'double' },
  { name: 'price_2', type: 'double' },
  { name: 'price_3', type: 'double' },
];

/** Odds observations as typed columns, so ingest merges hundreds of thousands in little memory. */
export class ObservationColumns {
  length = 0;
  matchId: Float64Array;
  at: Float64Array;
  /** Three prices per row, NaN for none. */
  prices: Float64Array;
  market: Uint8Array;
  kind: Uint8Array;
  source: Uint32Array;
  private readonly codes = new SourceCodes(0xffffffff);
  readonly sources: readonly string[] = this.codes.names;

  constructor(capacity = 1024) {
    const c = Math.max(1, capacity);
    this.matchId = new Float64Array(c);
    this.at = new Float64Array(c);
    this.prices = new Float64Array(c * 3);
    this.market = new Uint8Array(c);
    this.kind = new Uint8Array(c);
    this.source = new Uint32Array(c);
  }

  static of(list: Iterable<OddsObservation>): ObservationColumns {
    const c = new ObservationColumns();
    for (const o of list) c.push(o);
    return c;
  }

  /** The observations file straight into columns; a row that is not a complete observation is dropped. */
  static async decode(buf: Buffer): Promise<ObservationColumns> {
    const file = parquetFile(buf);
    const metadata = parquetMetadata(file);
    const n = Number(metadata.num_rows);
    const c = new ObservationColumns(n);
    c.matchId.fill(Number.NaN, 0, n);
    c.at.fill(Number.NaN, 0, n);
    c.prices.fill(Number.NaN, 0, 3 * n);
    c.market.fill(NONE, 0, n);
    c.kind.fill(NONE, 0, n);
    const price = (k: number) => (v: unknown, i: number) => {
      if (typeof v === 'number' && Number.isFinite(v)) c.prices[i * 3 + k] = v;
    };
    // A cell that is not a valid value leaves the row incomplete.
    const cell: Record<string, (v: unknown, i: number) => void> = {
      match_id: (v, i) => {
        const id = typeof v === 'bigint' ? Number(v) : v;
        if (typeof id === 'number' && Number.isSafeInteger(id)) c.matchId[i] = id;
      },
      observed_at: (v, i) => {
        if (v instanceof Date) c.at[i] = v.getTime();
      },
      market: (v, i) => {
        if (isOddsMarket(v)) c.market[i] = ODDS_MARKETS.indexOf(v);
      },
      kind: (v, i) => {
        if (isOddsKind(v)) c.kind[i] = ODDS_KINDS.indexOf(v);
      },
      source: (v, i) => {
        c.source[i] = c.codes.code(typeof v === 'string' ? v : '');
      },
      price_1: price(0),
      price_2: price(1),
      price_3: price(2),
    };
    await readColumnByColumn(file, metadata, Object.keys(cell), ({ columnName, columnData, rowStart }) => {
      const put = cell[columnName]!;
      for (let j = 0; j < columnData.length; j++) put(columnData[j], rowStart + j);
    });
    // Keep the complete rows, moved down in place.
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(c.matchId[i]) || Number.isNaN(c.at[i]) || c.market[i] === NONE || c.kind[i] === NONE)
        continue;
      const outcomes = MARKET_OUTCOMES[ODDS_MARKETS[c.market[i]]].length;
      if (c.prices.subarray(i * 3, i * 3 + outcomes).some(Number.isNaN)) continue;
      c.matchId[kept] = c.matchId[i];
      c.at[kept] = c.at[i];
      for (let k = 0; k < 3; k++) c.prices[kept * 3 + k] = k < outcomes ? c.prices[i * 3 + k] : Number.NaN;
      c.market[kept] = c.market[i];
      c.kind[kept] = c.kind[i];
      c.source[kept] = c.source[i];
      kept++;
    }
    c.length = kept;
    return c;
  }

  push(o: OddsObservation): void {
    const i = this.slot();
    this.matchId[i] = o.match_id;
    this.at[i] = o.observed_at.getTime();
    for (let k = 0; k < 3; k++) this.prices[i * 3 + k] = o.prices[k] ?? Number.NaN;
    this.market[i] = ODDS_MARKETS.indexOf(o.market);
    this.kind[i] = ODDS_KINDS.indexOf(o.kind);
    this.source[i] = this.codes.code(o.source);
  }

  append(other: ObservationColumns): void {
    for (let i = 0; i < other.length; i++) {
      const j = this.slot();
      this.matchId[j] = other.matchId[i];
      this.at[j] = other.at[i];
      this.prices.set(other.prices.subarray(i * 3, i * 3 + 3), j * 3);
      this.market[j] = other.market[i];
      this.kind[j] = other.kind[i];
      this.source[j] = this.codes.code(other.sources[other.source[i]]);
    }
  }

  observation(i: number): OddsObservation {
    const market = ODDS_MARKETS[this.market[i]];
    const n = MARKET_OUTCOMES[market].length;
    const prices = Array.from(this.prices.subarray(i * 3, i * 3 + n));
    return {
      match_id: this.matchId[i],
      market,
      kind: ODDS_KINDS[this.kind[i]],
      observed_at: new Date(this.at[i]),
      prices,
      source: this.sources[this.source[i]],
    };
  }

  byMatch(): MatchObservations {
    return new MatchObservations(this);
  }

  /** Same kind and prices (the identity aside). */
  samePrices(i: number, j: number): boolean {
    if (this.kind[i] !== this.kind[j]) return false;
    for (let k = 0; k < 3; k++) {
      const a = this.prices[i * 3 + k];
      const b = this.prices[j * 3 + k];
      if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
    }
    return true;
  }

  encode(order: ArrayLike<number>): Buffer {
    const at = (f: (i: number) => unknown) => (j: number) => f(order[j]);
    const column: Record<string, (j: number) => unknown> = {
      match_id: at((i) => this.matchId[i]),
      market: at((i) => ODDS_MARKETS[this.market[i]]),
      kind: at((i) => ODDS_KINDS[this.kind[i]]),
      observed_at: at((i) => this.at[i]),
      source: at((i) => this.sources[this.source[i]]),
      price_1: at((i) => this.prices[i * 3]),
      price_2: at((i) => this.prices[i * 3 + 1]),
      price_3: at((i) => (Number.isNaN(this.prices[i * 3 + 2]) ? null : this.prices[i * 3 + 2])),
    };
    return writeParquetColumns(OBSERVATION_COLUMNS, order.length, (name) => column[name]!);
  }

  private slot(): number {
    if (this.length < this.matchId.length) return this.length++;
    const c = this.matchId.length * 2;
    this.matchId = grown(this.matchId, c);
    this.at = grown(this.at, c);
    this.prices = grown(this.prices, c * 3);
    this.market = grown(this.market, c);
    this.kind = grown(this.kind, c);
    this.source = grown(this.source, c);
    return this.length++;
  }
}

/** What the live goals markets read: a match's observations of one market. */
export interface ObservationLookup {
  of(matchId: number, market: OddsMarket): readonly OddsObservation[];
}

/** {@link ObservationColumns} grouped by match (file order kept); a match's objects are made when asked for. */
export class MatchObservations implements ObservationLookup {
  private readonly order: Uint32Array;
  private readonly ranges = new Map<number, [number, number]>();

  constructor(private readonly columns: ObservationColumns) {
    const ids = columns.matchId;
    this.order = Uint32Array.from({ length: columns.length }, (_, i) => i).sort(
      (a, b) => ids[a] - ids[b] || a - b,
    );
    for (let j = 0; j < this.order.length; ) {
      const id = ids[this.order[j]];
      let end = j;
      while (end < this.order.length && ids[this.order[end]] === id) end++;
      this.ranges.set(id, [j, end]);
      j = end;
    }
  }

  get size(): number {
    return this.order.length;
  }

  ofMatch(matchId: number): OddsObservation[] {
    const range = this.ranges.get(matchId);
    if (!range) return [];
    return Array.from(this.order.subarray(...range), (i) => this.columns.observation(i));
  }

  of(matchId: number, market: OddsMarket): readonly OddsObservation[] {
    return OddsTimeline.from(this.ofMatch(matchId)).of(matchId, market);
  }
}
