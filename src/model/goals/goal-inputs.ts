import type { Match, OddsRecord } from '../../domain/index.js';
import { earlyPredictionTime, impliedMeans, twoWay } from '../../features/index.js';

/** A match's goals-model inputs at its prediction time: OPENING-implied means, CLOSING-line ratings. */
export interface GoalInput {
  match_id: number;
  region_id: number;
  /** Kick-off and prediction time, ms since epoch. */
  t: number;
  pt: number;
  /** (home, away) means of the opening prices, and of the goal ratings. */
  open: [number, number] | null;
  rated: [number, number];
  /** De-margined opening P(over 2.5), P(BTTS yes), closing likewise — the lines we are judged against. */
  line: {
    ou_open: number | null;
    ou_close: number | null;
    btts_open: number | null;
    btts_close: number | null;
  };
  /** Goals, null unless finished and kicked off before as-of. */
  home_goals: number | null;
  away_goals: number | null;
}

export interface GoalRatingParams {
  /** Share of a closing-line surprise (log mean units) each team's attack/defence absorbs. Default `0.45`. */
  eta: number;
  /** Step of a region's mean and home terms. Default `0.01`. */
  etaRegion: number;
}

/** Chosen on the 2015-07..2021-07 walk-forward (docs/model-quality.md; 0.1/0.2/0.3/0.45 tried). */
export const DEFAULT_GOAL_RATING: GoalRatingParams = { eta: 0.45, etaRegion: 0.01 };

/** Version of the input definition: bump whenever {@link buildGoalInputs} computes anything differently. */
export const GOAL_INPUTS_VERSION = 2;

/** De-margined (power) home/away probabilities of a 1X2 book, or null. */
function oneXTwo(
  h: number | null | undefined,
  d: number | null | undefined,
  a: number | null | undefined,
): [number, number] | null {
  if (typeof h !== 'number' || typeof d !== 'number' || typeof a !== 'number') return null;
  if (!(h > 1 && d > 1 && a > 1)) return null;
  const r = [1 / h, 1 / d, 1 / a];
  let k = 1;
  for (let it = 0; it < 50; it++) {
    const p = r.map((x) => x ** k);
    const f = p[0] + p[1] + p[2] - 1;
    const df = p[0] * Math.log(r[0]) + p[1] * Math.log(r[1]) + p[2] * Math.log(r[2]);
    const step = f / df;
    k -= step;
    if (Math.abs(step) < 1e-13) break;
  }
  const p = r.map((x) => x ** k);
  const s = p[0] + p[1] + p[2];
  return [p[0] / s, p[2] / s];
}

/** Means implied by the opening prices, else by `odd_*` when no closing price exists (so not the close). */
export function openingMeans(o: OddsRecord | undefined): [number, number] | null {
  if (!o) return null;
  const x12 =
    oneXTwo(o.open_home, o.open_draw, o.open_away) ??
    (o.close_home == null ? oneXTwo(o.odd_home, o.odd_draw, o.odd_away) : null);
  const over =
    twoWay(o.open_over25, o.open_under25) ??
    (o.close_over25 == null ? twoWay(o.odd_over25, o.odd_under25) : null);
  return x12 && over !== null ? impliedMeans(x12[0], x12[1], over) : null;
}

/** One input per match in kick-off order; a kick-off's closing lines move only ratings predicted after it. */
export function buildGoalInputs(
  matches: readonly Match[],
  odds: Pick<ReadonlyMap<number, OddsRecord>, 'get'>,
  asOf: Date,
  params: Partial<GoalRatingParams> = {},
  /** The prediction time of a kick-off (non-decreasing in it). Default the early horizon's. */
  predictionTime?: (kickoffMs: number) => number,
): GoalInput[] {
  const p: GoalRatingParams = { ...DEFAULT_GOAL_RATING, ...params };
  const asOfMs = asOf.getTime();
  const sorted = [...matches].sort(
    (a, b) => a.startTimeUtc.getTime() - b.startTimeUtc.getTime() || a.id - b.id,
  );
  const att = new Map<string, number>();
  const def = new Map<string, number>();
  const mu = new Map<number, number>();
  const home = new Map<number, number>();
  const predicted = (region: number, kH: string, kA: string): [number, number] => {
    const m0 = mu.get(region) ?? Math.log(1.3);
    const h0 = home.get(region) ?? 0.25;
    return [
      m0 + h0 / 2 + (att.get(kH) ?? 0) - (def.get(kA) ?? 0),
      m0 - h0 / 2 + (att.get(kA) ?? 0) - (def.get(kH) ?? 0),
    ];
  };
  type Update = { region: number; kH: string; kA: string; lam: [number, number] };
  /** One kick-off's closing-line updates, folded in together once a prediction time reaches it. */
  const fold = (batch: readonly Update[]): void => {
    const errors = batch.map((u) => {
      const [predH, predA] = predicted(u.region, u.kH, u.kA);
      return [Math.log(u.lam[0]) - predH, Math.log(u.lam[1]) - predA] as const;
    });
    batch.forEach(({ region, kH, kA }, n) => {
      const [eh, ea] = errors[n];
      att.set(kH, (att.get(kH) ?? 0) + p.eta * eh);
      def.set(kA, (def.get(kA) ?? 0) - p.eta * eh);
      att.set(kA, (att.get(kA) ?? 0) + p.eta * ea);
      def.set(kH, (def.get(kH) ?? 0) - p.eta * ea);
      mu.set(region, (mu.get(region) ?? Math.log(1.3)) + (p.etaRegion * (eh + ea)) / 2);
      home.set(region, (home.get(region) ?? 0.25) + p.etaRegion * (eh - ea));
    });
  };
  const out: GoalInput[] = [];
  // Closing prices exist from kick-off: its updates wait for the first prediction time at or after it.
  const pending: Array<{ at: number; batch: Update[] }> = [];
  let head = 0;
  let i = 0;
  while (i < sorted.length) {
    const t = sorted[i].startTimeUtc.getTime();
    let j = i;
    while (j < sorted.length && sorted[j].startTimeUtc.getTime() === t) j++;
    const pt = predictionTime ? predictionTime(t) : earlyPredictionTime(t, asOfMs);
    while (head < pending.length && pending[head].at <= pt) fold(pending[head++].batch);
    const batch: Update[] = [];
    for (let g = i; g < j; g++) {
      const m = sorted[g];
      const kH = `${m.regionId}\u0000${m.homeTeamName}`;
      const kA = `${m.regionId}\u0000${m.awayTeamName}`;
      const [predH, predA] = predicted(m.regionId, kH, kA);
      const o = odds.get(m.id);
      const open = openingMeans(o);
      const finished = m.status === 'finished' && m.homeScore !== null && m.awayScore !== null && t < asOfMs;
      out.push({
        match_id: m.id,
        region_id: m.regionId,
        t,
        pt,
        open,
        rated: [Math.exp(predH), Math.exp(predA)],
        line: {
          ou_open: twoWay(o?.open_over25, o?.open_under25),
          ou_close: t < asOfMs ? twoWay(o?.close_over25, o?.close_under25) : null,
          btts_open: twoWay(o?.open_btts_yes, o?.open_btts_no),
          btts_close: t < asOfMs ? twoWay(o?.close_btts_yes, o?.close_btts_no) : null,
        },
        home_goals: finished ? m.homeScore : null,
        away_goals: finished ? m.awayScore : null,
      });
      if (t >= asOfMs || !o) continue;
      const c = oneXTwo(o.close_home, o.close_draw, o.close_away);
      const cOver = twoWay(o.close_over25, o.close_under25);
      const lam = c && cOver !== null ? impliedMeans(c[0], c[1], cOver) : null;
      if (lam) batch.push({ region: m.regionId, kH, kA, lam });
    }
    if (batch.length > 0) pending.push({ at: t, batch });
    i = j;
  }
  return out;
}
