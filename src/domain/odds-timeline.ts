import { getOrSet } from './get-or-set.js';
import type { OddsRecord } from './match.js';
import type { OddsKind, OddsMarket, OddsObservation } from './odds.js';
import { OPENING_LEAD_MS } from './odds.js';

const KIND_ORDER: Record<OddsKind, number> = { opening: 0, intermediate: 1, closing: 2 };

/** Observation order: time, then opening < intermediate < closing, then source (a stable total order). */
function compare(a: OddsObservation, b: OddsObservation): number {
  return (
    a.observed_at.getTime() - b.observed_at.getTime() ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    (a.source < b.source ? -1 : a.source > b.source ? 1 : 0)
  );
}

/** Point-in-time index of odds observations: per match and market, sorted by time (`latest` bisects). */
export class OddsTimeline {
  private readonly byMatch = new Map<number, Map<OddsMarket, OddsObservation[]>>();
  private count = 0;

  /** Builds the index, O(n log n). Observations are not copied; do not mutate them afterwards. */
  static from(observations: Iterable<OddsObservation>): OddsTimeline {
    const t = new OddsTimeline();
    for (const o of observations) t.add(o);
    for (const markets of t.byMatch.values()) for (const list of markets.values()) list.sort(compare);
    return t;
  }

  /** A timeline from per-match records: opening 1X2 at kick-off − OPENING_LEAD_MS, closing at kick-off. */
  static fromRecords(records: Iterable<OddsRecord>, kickoffById: ReadonlyMap<number, Date>): OddsTimeline {
    const obs: OddsObservation[] = [];
    for (const r of records) {
      const kickoff = kickoffById.get(r.match_id);
      if (!kickoff) continue;
      const add = (kind: OddsKind, at: number, p: Array<number | null>) => {
        if (p.every((v) => typeof v === 'number' && Number.isFinite(v)))
          obs.push({
            match_id: r.match_id,
            market: '1x2',
            kind,
            observed_at: new Date(at),
            prices: p as number[],
            source: r.source,
          });
      };
      add('opening', kickoff.getTime() - OPENING_LEAD_MS, [r.open_home, r.open_draw, r.open_away]);
      add('closing', kickoff.getTime(), [r.close_home, r.close_draw, r.close_away]);
    }
    return OddsTimeline.from(obs);
  }

  private add(o: OddsObservation): void {
    getOrSet(
      getOrSet(this.byMatch, o.match_id, () => new Map()),
      o.market,
      () => [],
    ).push(o);
    this.count++;
  }

  get size(): number {
    return this.count;
  }

  of(matchId: number, market: OddsMarket): readonly OddsObservation[] {
    return this.byMatch.get(matchId)?.get(market) ?? [];
  }

  /** The newest observation of `market` for `matchId` made at or before `at`; null when there is none. */
  latest(matchId: number, market: OddsMarket, at: Date | number): OddsObservation | null {
    const list = this.byMatch.get(matchId)?.get(market);
    if (!list) return null;
    const t = typeof at === 'number' ? at : at.getTime();
    // `lo` ends at the first index with observed_at > t.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].observed_at.getTime() <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? null : list[lo - 1];
  }

  opening(matchId: number, market: OddsMarket): OddsObservation | null {
    return this.of(matchId, market).find((o) => o.kind === 'opening') ?? null;
  }

  closing(matchId: number, market: OddsMarket): OddsObservation | null {
    return this.of(matchId, market).findLast((o) => o.kind === 'closing') ?? null;
  }

  /** The newest observation whatever its time (what a user sees last); null when none. */
  last(matchId: number, market: OddsMarket): OddsObservation | null {
    return this.of(matchId, market).at(-1) ?? null;
  }

  matchIds(): IterableIterator<number> {
    return this.byMatch.keys();
  }
}
