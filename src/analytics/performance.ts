import { DAY_MS, type Match, type OddsRecord, type Probabilities, predictedClass } from '../domain/index.js';
import { demargin } from '../features/index.js';
import { brier, logLoss, rps } from '../model/index.js';
import type { PerformanceSummary } from '../schemas/index.js';
import { groupBy, outcomeOf } from './io.js';
import { type ServedRow, servedBeforeKickoff } from './performance-served.js';

/** One finished match joined to the prediction it was given and to both market lines. */
export interface JoinedMatch {
  match_id: number;
  region_id: number;
  region_name: string;
  start_time_utc: Date;
  label: 0 | 1 | 2;
  proba: Probabilities;
  /** De-margined opening and closing odds; null when the line is unknown for the match. */
  opening: Probabilities | null;
  closing: Probabilities | null;
}

export type PerformanceGroup = PerformanceSummary['groups'][number];
type LineComparison = PerformanceGroup['opening'];
export type ReliabilityBin = PerformanceGroup['reliability'][number];
export type PeriodPoint = PerformanceGroup['series'][number];
type PerformanceFigures = Omit<PerformanceGroup, 'region_id' | 'region_name' | 'series'>;

/** Which finished matches count: the last `matches` of them, kicking off within `days` of as-of. */
export interface PerformanceWindow {
  /** Last N finished matches of the group; 0 = no limit. */
  matches: number;
  /** Only kick-offs in [as_of − days, as_of); 0 = no limit. */
  days: number;
}

/** Finished matches served before kick-off, joined to their prediction and lines; counts the unserved. */
export function joinServedResults(
  served: readonly Pick<
    ServedRow,
    'match_id' | 'start_time_utc' | 'served_at' | 'proba_home' | 'proba_draw' | 'proba_away'
  >[],
  matches: readonly Match[],
  odds: readonly OddsRecord[],
  asOf: Date,
): { joined: JoinedMatch[]; unserved: number } {
  const asOfMs = asOf.getTime();
  const byId = new Map(matches.map((m) => [m.id, m]));
  const before = servedBeforeKickoff(served, (id) => byId.get(id)?.startTimeUtc);
  const oddsById = new Map(odds.map((o) => [o.match_id, o]));
  const joined: JoinedMatch[] = [];
  let unserved = 0;
  for (const m of matches) {
    const label = outcomeOf(m);
    if (label === null || m.startTimeUtc.getTime() >= asOfMs) continue;
    const s = before.get(m.id);
    const o = oddsById.get(m.id);
    if (!s) {
      unserved++;
      continue;
    }
    joined.push({
      match_id: m.id,
      region_id: m.regionId,
      region_name: m.regionName,
      start_time_utc: m.startTimeUtc,
      label,
      proba: [s.proba_home, s.proba_draw, s.proba_away],
      opening: o ? demargin(o.open_home, o.open_draw, o.open_away, 'power') : null,
      closing: o ? demargin(o.close_home, o.close_draw, o.close_away, 'power') : null,
    });
  }
  joined.sort((a, b) => a.start_time_utc.getTime() - b.start_time_utc.getTime() || a.match_id - b.match_id);
  return { joined, unserved };
}

/** The rows of a group that fall in the window (rows sorted by kick-off). */
function applyWindow(rows: readonly JoinedMatch[], window: PerformanceWindow, asOf: Date): JoinedMatch[] {
  const from = window.days > 0 ? asOf.getTime() - window.days * DAY_MS : Number.NEGATIVE_INFINITY;
  const inDays = rows.filter((r) => r.start_time_utc.getTime() >= from);
  return window.matches > 0 ? inDays.slice(-window.matches) : inDays;
}

function compareLine(rows: readonly JoinedMatch[], which: 'opening' | 'closing'): LineComparison {
  const withLine = rows.filter((r) => r[which]);
  const [model, line, y] = [
    withLine.map((r) => r.proba),
    withLine.map((r) => r[which]!),
    withLine.map((r) => r.label),
  ];
  const n = y.length;
  const m = n ? logLoss(model, y) : null;
  const l = n ? logLoss(line, y) : null;
  return {
    n,
    model_log_loss: m,
    line_log_loss: l,
    line_rps: n ? rps(line, y) : null,
    line_brier: n ? brier(line, y) : null,
    edge_log_loss: m === null || l === null ? null : l - m,
  };
}

/** Ten equal-width bins of predicted probability, the three outcomes of each match pooled. */
export function reliabilityTable(rows: ReadonlyArray<{ proba: readonly number[]; label: number }>): {
  bins: ReliabilityBin[];
  calibration_error: number | null;
} {
  const n = new Array<number>(10).fill(0);
  const sumP = new Array<number>(10).fill(0);
  const hits = new Array<number>(10).fill(0);
  for (const r of rows) {
    for (let k = 0; k < 3; k++) {
      const p = r.proba[k];
      const b = Math.min(9, Math.max(0, Math.floor(p * 10)));
      n[b]++;
      sumP[b] += p;
      if (r.label === k) hits[b]++;
    }
  }
  let total = 0;
  let gap = 0;
  const bins = n.map((count, b) => {
    const mean = count ? sumP[b] / count : null;
    const freq = count ? hits[b] / count : null;
    if (count) {
      total += count;
      gap += count * Math.abs((mean as number) - (freq as number));
    }
    return {
      lower: b / 10,
      upper: (b + 1) / 10,
      n: count,
      mean_predicted: mean,
      observed_frequency: freq,
    };
  });
  return { bins, calibration_error: total ? gap / total : null };
}

function performanceFigures(rows: readonly JoinedMatch[]): PerformanceFigures {
  const [probs, y, n] = [rows.map((r) => r.proba), rows.map((r) => r.label), rows.length];
  const rel = reliabilityTable(rows);
  return {
    n,
    log_loss: n ? logLoss(probs, y) : null,
    rps: n ? rps(probs, y) : null,
    brier: n ? brier(probs, y) : null,
    accuracy: n ? rows.filter((r) => predictedClass(r.proba) === r.label).length / n : null,
    opening: compareLine(rows, 'opening'),
    closing: compareLine(rows, 'closing'),
    calibration_error: rel.calibration_error,
    reliability: rel.bins,
    first_kickoff: n ? rows[0].start_time_utc.toISOString() : null,
    last_kickoff: n ? rows[n - 1].start_time_utc.toISOString() : null,
  };
}

/** Monday 00:00 UTC of the week holding `d`. */
export function weekStart(d: Date): number {
  const day = Math.floor(d.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 → weekday 3 counting from Monday.
  return (day - ((day + 3) % 7)) * DAY_MS;
}

/** Model and both lines per calendar week (rows sorted by kick-off). */
function weeklySeries(rows: readonly JoinedMatch[]): PeriodPoint[] {
  return [...groupBy(rows, (r) => weekStart(r.start_time_utc)).entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([w, g]) => {
      const [open, close, probs] = [
        compareLine(g, 'opening'),
        compareLine(g, 'closing'),
        g.map((r) => r.proba),
      ];
      return {
        period_start: new Date(w).toISOString(),
        n: g.length,
        log_loss: logLoss(
          probs,
          g.map((r) => r.label),
        ),
        n_opening: open.n,
        opening_log_loss: open.line_log_loss,
        model_on_opening_log_loss: open.model_log_loss,
        n_closing: close.n,
        closing_log_loss: close.line_log_loss,
        model_on_closing_log_loss: close.model_log_loss,
      };
    });
}

/** All regions, then each region by name: figures over the window (per group), weekly series over all. */
export function performanceGroups(
  rows: readonly JoinedMatch[],
  window: PerformanceWindow,
  asOf: Date,
): PerformanceGroup[] {
  const regions = groupBy(rows, (r) => r.region_id);
  const group = (regionId: number | null, name: string, all: readonly JoinedMatch[]): PerformanceGroup => ({
    region_id: regionId,
    region_name: name,
    ...performanceFigures(applyWindow(all, window, asOf)),
    series: weeklySeries(all),
  });
  return [
    group(null, 'all', rows),
    ...[...regions.entries()]
      .map(([id, g]) => group(id, g[0].region_name, g))
      .sort((a, b) => a.region_name.localeCompare(b.region_name)),
  ];
}
