import type { Probabilities } from '../domain/index.js';
import { bootstrapInterval, logLoss, rps } from '../model/index.js';
import type { BacktestSummary } from '../schemas/index.js';
import type { AnalystRow } from './analyst-columns.js';
import { type AnalystData, analystBets } from './analyst-data.js';
import { summariseBets } from './bets.js';
import { groupBy, threeWay } from './io.js';
import { reliabilityTable, weekStart } from './performance.js';

/** Paired bootstrap: resamples of the matches, percentile interval, fixed seed (reproducible). */
const BOOTSTRAP = { resamples: 500, level: 0.95, seed: 1 } as const;

const HORIZON_LINES = [
  { horizon: 'early', line: 'opening' },
  { horizon: 'early', line: 'closing' },
  { horizon: 'kickoff', line: 'closing' },
] as const;

type LineComparisonRow = BacktestSummary['comparisons'][number];
type BetSummaryRow = BacktestSummary['bets'][number];
type ProfitSeries = BacktestSummary['profit'][number];

/** Mean of `d` and the percentile interval of its mean over paired resamples of the matches. */
function pairedBootstrap(d: readonly number[]): [number, number, number] {
  return [d.reduce((a, b) => a + b, 0) / d.length, ...bootstrapInterval(d, BOOTSTRAP)];
}

const iso = (v: AnalystRow[string] | undefined) => (v instanceof Date ? v.toISOString() : null);

interface Scored {
  row: AnalystRow;
  mLog: number;
  lLog: number;
  mRps: number;
  lRps: number;
}

function compare(
  horizon: 'early' | 'kickoff',
  line: 'opening' | 'closing',
  season: string,
  region: { id: number | null; name: string },
  xs: readonly Scored[],
): LineComparisonRow {
  const n = xs.length;
  const avg = (f: (s: Scored) => number) => xs.reduce((a, s) => a + f(s), 0) / n;
  const [dl, dlLo, dlHi] = pairedBootstrap(xs.map((s) => s.mLog - s.lLog));
  const [dr, drLo, drHi] = pairedBootstrap(xs.map((s) => s.mRps - s.lRps));
  return {
    horizon,
    line,
    season,
    region_id: region.id,
    region_name: region.name,
    n,
    first_kickoff: iso(xs[0]?.row.start_time_utc),
    last_kickoff: iso(xs[n - 1]?.row.start_time_utc),
    model_log_loss: avg((s) => s.mLog),
    line_log_loss: avg((s) => s.lLog),
    diff_log_loss: dl,
    diff_log_loss_low: dlLo,
    diff_log_loss_high: dlHi,
    model_rps: avg((s) => s.mRps),
    line_rps: avg((s) => s.lRps),
    diff_rps: dr,
    diff_rps_low: drLo,
    diff_rps_high: drHi,
  };
}

type Group<T> = { season: string; region: { id: number | null; name: string }; items: T[] };

/** Rows grouped as: all; each season; each region; each season × region (only non-empty groups). */
function groupsOf<T>(xs: readonly T[], rowOf: (x: T) => Readonly<Record<string, unknown>>) {
  const map = new Map<string, Group<T>>();
  const add = (season: string, id: number | null, name: string, x: T) => {
    const k = `${season}\u0000${id}`;
    if (!map.has(k)) map.set(k, { season, region: { id, name }, items: [] });
    map.get(k)!.items.push(x);
  };
  for (const x of xs) {
    const r = rowOf(x);
    const [season, id, name] = [String(r.season), Number(r.region_id), String(r.region_name)];
    add('all', null, 'all', x);
    add(season, null, 'all', x);
    add('all', id, name, x);
    add(season, id, name, x);
  }
  return [...map.values()].sort(
    (a, b) =>
      (a.season === 'all' ? -1 : 0) - (b.season === 'all' ? -1 : 0) ||
      a.season.localeCompare(b.season) ||
      (a.region.id === null ? -1 : 0) - (b.region.id === null ? -1 : 0) ||
      a.region.name.localeCompare(b.region.name),
  );
}

/** `GET /monitoring/backtest`, from the `backtest` and `bets` export rows only (so it can be recomputed). */
export function backtestSummary(data: AnalystData): BacktestSummary {
  const rows = data.backtest.filter((r) => r.outcome !== null);
  const comparisons: LineComparisonRow[] = [];
  for (const { horizon, line } of HORIZON_LINES) {
    const scored = rows.flatMap((r): Scored[] => {
      const p = threeWay(r, `${horizon}_proba`) as Probabilities | null;
      const q = threeWay(r, line === 'opening' ? 'open_fair' : 'close_fair') as Probabilities | null;
      const y = [r.outcome as number];
      return p && q
        ? [{ row: r, mLog: logLoss([p], y), lLog: logLoss([q], y), mRps: rps([p], y), lRps: rps([q], y) }]
        : [];
    });
    for (const g of groupsOf(scored, (s) => s.row))
      comparisons.push(compare(horizon, line, g.season, g.region, g.items));
  }

  const early = rows.flatMap((r) => {
    const p = threeWay(r, 'early_proba');
    return p ? [{ proba: p, label: r.outcome as number }] : [];
  });

  const betGroups = groupBy(analystBets(data), (b) => `${b.strategy}|${b.staking}|${b.market}`);
  const bets: BetSummaryRow[] = [];
  const profit: ProfitSeries[] = [];
  for (const list of betGroups.values()) {
    const { strategy, staking, market } = list[0];
    for (const g of groupsOf(list, (b) => b))
      bets.push({
        strategy,
        staking,
        market,
        season: g.season,
        region_id: g.region.id,
        region_name: g.region.name,
        ...summariseBets(g.items),
      });
    // Cumulative profit after the last bet of each week (Monday, UTC).
    const points: ProfitSeries['points'] = [];
    let cumulative_profit = 0;
    list.forEach((b, i) => {
      cumulative_profit += b.profit;
      const week = b.start_time_utc ? new Date(weekStart(b.start_time_utc)).toISOString().slice(0, 10) : '';
      if (points.at(-1)?.week === week) points.pop();
      points.push({ week, n_bets: i + 1, cumulative_profit });
    });
    profit.push({ strategy, staking, market, points });
  }
  return {
    available: data.backtest.length > 0,
    run_id: data.runId,
    n_matches: data.backtest.length,
    first_kickoff: iso(data.backtest[0]?.start_time_utc),
    last_kickoff: iso(data.backtest[data.backtest.length - 1]?.start_time_utc),
    demargin: 'power',
    edge_threshold: data.edgeThreshold,
    bootstrap: { ...BOOTSTRAP },
    comparisons,
    reliability: { horizon: 'early', n: early.length, bins: reliabilityTable(early).bins },
    bets,
    profit,
  };
}
