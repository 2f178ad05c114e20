import { type OddsKind, type OddsMarket, type OddsObservation, OddsTimeline } from '../domain/index.js';

/** What the live goals markets read of the odds observations: a match's observations of one market. */
export interface ObservationLookup {
  of(matchId: number, market: OddsMarket): readonly OddsObservation[];
}

/**
 * The odds observations held column by column, grouped by match: typed arrays of times and prices
 * and dictionary codes for market, kind and source, about 50 bytes an observation where objects
 * in a timeline take a few hundred. A match's observations are rebuilt (as an {@link OddsTimeline}
 * of that match alone, so in the same order) when asked for.
 */
export class ObservationColumns implements ObservationLookup {
  private constructor(
    private readonly slots: ReadonlyMap<number, number>,
    private readonly starts: Uint32Array,
    private readonly time: Float64Array,
    private readonly prices: Float64Array,
    private readonly width: Uint8Array,
    private readonly codes: Uint16Array,
    private readonly dict: readonly string[],
  ) {}

  static from(observations: readonly OddsObservation[]): ObservationColumns {
    const order = observations.map((_, i) => i);
    // Grouped by match, file order kept within a match (a stable sort).
    order.sort((a, b) => observations[a].match_id - observations[b].match_id || a - b);
    const n = order.length;
    const maxWidth = observations.reduce((m, o) => Math.max(m, o.prices.length), 0);
    const time = new Float64Array(n);
    const prices = new Float64Array(n * maxWidth);
    const width = new Uint8Array(n);
    // Market, kind and source of each observation, as codes into `dict`.
    const codes = new Uint16Array(n * 3);
    const dict: string[] = [];
    const codeOf = new Map<string, number>();
    const code = (s: string) => {
      let c = codeOf.get(s);
      if (c === undefined) {
        c = dict.length;
        dict.push(s);
        codeOf.set(s, c);
      }
      return c;
    };
    const slots = new Map<number, number>();
    const starts: number[] = [];
    for (let j = 0; j < n; j++) {
      const o = observations[order[j]];
      if (!slots.has(o.match_id)) {
        slots.set(o.match_id, starts.length);
        starts.push(j);
      }
      time[j] = o.observed_at.getTime();
      width[j] = o.prices.length;
      for (let k = 0; k < o.prices.length; k++) prices[j * maxWidth + k] = o.prices[k];
      codes[j * 3] = code(o.market);
      codes[j * 3 + 1] = code(o.kind);
      codes[j * 3 + 2] = code(o.source);
    }
    starts.push(n);
    if (dict.length > 0xffff) throw new RangeError('too many distinct markets, kinds and sources');
    return new ObservationColumns(slots, Uint32Array.from(starts), time, prices, width, codes, dict);
  }

  get size(): number {
    return this.time.length;
  }

  /** Every observation of a match (rebuilt objects, grouped as the file had them). */
  ofMatch(matchId: number): OddsObservation[] {
    const slot = this.slots.get(matchId);
    if (slot === undefined) return [];
    const stride = this.time.length === 0 ? 0 : this.prices.length / this.time.length;
    const out: OddsObservation[] = [];
    for (let j = this.starts[slot]; j < this.starts[slot + 1]; j++) {
      out.push({
        match_id: matchId,
        market: this.dict[this.codes[j * 3]] as OddsMarket,
        kind: this.dict[this.codes[j * 3 + 1]] as OddsKind,
        observed_at: new Date(this.time[j]),
        prices: Array.from(this.prices.subarray(j * stride, j * stride + this.width[j])),
        source: this.dict[this.codes[j * 3 + 2]],
      });
    }
    return out;
  }

  of(matchId: number, market: OddsMarket): readonly OddsObservation[] {
    return OddsTimeline.from(this.ofMatch(matchId)).of(matchId, market);
  }
}
