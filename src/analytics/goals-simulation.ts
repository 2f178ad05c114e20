import { KEYS, type OddsRecord } from '../domain/index.js';
import { readOddsFile } from '../ingest/index.js';
import { marketsFromMatrix, scoreMatrix } from '../model/index.js';
import { type AnalyticsDeps, asDate, matchesOf, numOrNull, putReport, readParquetObject } from './io.js';
import {
  type BetCandidate,
  type OddsSource,
  type RegionRoi,
  type SimulationResult,
  simulateBets,
} from './simulation.js';

/** Two-way goals markets the simulation bets. */
const GOALS_MARKETS = ['ou25', 'btts'] as const;
type GoalsMarket = (typeof GOALS_MARKETS)[number];

function valid(x: number | null | undefined): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 1;
}

/**
 * The two prices (over/yes first) a bettor would have taken: closing (falling back to the latest
 * `odd_*`, which is the closing price when known) or opening. Null unless both are usable.
 */
export function pickGoalsOdds(
  rec: OddsRecord,
  market: GoalsMarket,
  source: OddsSource,
): [number, number] | null {
  const pair =
    market === 'ou25'
      ? source === 'opening'
        ? [rec.open_over25, rec.open_under25]
        : [rec.close_over25 ?? rec.odd_over25, rec.close_under25 ?? rec.odd_under25]
      : source === 'opening'
        ? [rec.open_btts_yes, rec.open_btts_no]
        : [rec.close_btts_yes ?? rec.odd_btts_yes, rec.close_btts_no ?? rec.odd_btts_no];
  return valid(pair[0]) && valid(pair[1]) ? [pair[0], pair[1]] : null;
}

/**
 * A two-way market as a 1X2-shaped candidate so that the 1X2 simulation (same edge rule, same
 * baselines) runs unchanged: outcome 0 = over/yes, 1 = under/no; the third outcome has probability 0
 * and an infinite price, so no strategy ever picks it. The `home` baseline becomes "always over/yes".
 */
export function twoWayCandidate(
  base: Omit<BetCandidate, 'proba' | 'odds' | 'outcome'>,
  pFirst: number,
  odds: [number, number],
  firstWon: boolean,
): BetCandidate {
  return {
    ...base,
    outcome: firstWon ? 0 : 1,
    proba: [pFirst, 1 - pFirst, 0],
    odds: [odds[0], odds[1], Number.POSITIVE_INFINITY],
  };
}

interface GoalsSimulationResult {
  market: GoalsMarket;
  sim: SimulationResult;
}

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(Number(v.toFixed(6))) : '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Header of `reports/roi_by_region_markets.csv`. */
const ROI_MARKETS_COLUMNS = [
  'market',
  'strategy',
  'region_name',
  'roi_pct',
  'n_bets',
  'hit_rate',
  'profit',
  'region_id',
] as const;

/**
 * `roi_by_region_markets.csv`: per market, the model (edge rule) and the baselines `favourite` (lowest
 * price) and `home` (= always over / always yes), in total (region `ALL`) and per region.
 */
export function roiMarketsCsv(results: readonly GoalsSimulationResult[]): string {
  const lines = [ROI_MARKETS_COLUMNS.join(',')];
  for (const { market, sim } of results) {
    for (const s of [sim.model, sim.baselines.favourite, sim.baselines.home]) {
      const strategy = s.strategy === 'home' ? 'always_first' : s.strategy;
      const row = (
        r: Pick<RegionRoi, 'roi_pct' | 'n_bets' | 'hit_rate' | 'profit'>,
        name: string,
        id: number | null,
      ) => [market, strategy, name, r.roi_pct, r.n_bets, r.hit_rate, r.profit, id].map(cell).join(',');
      lines.push(row(s.total, 'ALL', null));
      for (const r of s.by_region) lines.push(row(r, r.region_name, r.region_id));
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Flat-stake simulation of O/U 2.5 and BTTS on the goals model's OUT-OF-SAMPLE rows (markets file rows
 * of stage `backtest` whose match kicked off at or after the fold's cutoff), finished before `asOf`,
 * same edge threshold and odds convention (closing) as the 1X2 simulation. Writes
 * `reports/roi_by_region_markets.csv`; returns the results (null when there is no markets file).
 */
export async function runGoalsSimulateStage(
  deps: AnalyticsDeps,
  opts: { asOf?: Date; edgeThreshold?: number; oddsSource?: OddsSource } = {},
): Promise<GoalsSimulationResult[] | null> {
  const asOf = opts.asOf ?? new Date();
  const threshold = opts.edgeThreshold ?? deps.config.edgeThreshold;
  const source = opts.oddsSource ?? 'closing';
  const rows = await readParquetObject(deps, KEYS.markets);
  if (!rows) return null;
  const matches = new Map((await matchesOf(deps)).map((m) => [m.id, m]));
  const odds = new Map((await readOddsFile(deps.store)).map((o) => [o.match_id, o]));
  const regions = new Map<number, string>();
  for (const m of matches.values()) regions.set(m.regionId, m.regionName);
  const results: GoalsSimulationResult[] = [];
  for (const market of GOALS_MARKETS) {
    const candidates: BetCandidate[] = [];
    for (const r of rows) {
      if (r.model_stage !== 'backtest') continue;
      const id = numOrNull(r.match_id);
      const m = id === null ? undefined : matches.get(id);
      const cutoff = asDate(r.training_cutoff);
      if (!m || !cutoff || m.startTimeUtc < cutoff || m.startTimeUtc >= asOf) continue;
      if (m.status !== 'finished' || m.homeScore === null || m.awayScore === null) continue;
      const rec = odds.get(m.id);
      const price = rec ? pickGoalsOdds(rec, market, source) : null;
      if (!price) continue;
      const mk = marketsFromMatrix(
        scoreMatrix(Number(r.expected_home_goals), Number(r.expected_away_goals), Number(r.rho)),
        1,
      );
      const p = market === 'ou25' ? mk.over['2.5'] : mk.btts_yes;
      const won = market === 'ou25' ? m.homeScore + m.awayScore > 2.5 : m.homeScore > 0 && m.awayScore > 0;
      candidates.push(
        twoWayCandidate(
          { match_id: m.id, region_id: m.regionId, region_name: m.regionName, season: m.season },
          p,
          price,
          won,
        ),
      );
    }
    const sim = simulateBets(candidates, {
      edgeThreshold: threshold,
      regions: [...regions].map(([region_id, region_name]) => ({ region_id, region_name })),
    });
    results.push({ market, sim });
  }
  await putReport(deps.store, KEYS.roiByRegionMarkets.key, roiMarketsCsv(results));
  deps.log.info(
    Object.fromEntries(
      results.map((r) => [r.market, { bets: r.sim.model.total.n_bets, roi_pct: r.sim.model.total.roi_pct }]),
    ),
    'goals-markets betting simulation written',
  );
  return results;
}
