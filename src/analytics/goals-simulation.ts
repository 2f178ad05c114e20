import { KEYS, type OddsRecord } from '../domain/index.js';
import { readOddsFile } from '../ingest/index.js';
import { marketsFromMatrix, scoreMatrix } from '../model/index.js';
import {
  type AnalyticsDeps,
  asDate,
  matchesOf,
  numOrNull,
  putReport,
  readParquetObject,
  regionsOf,
} from './io.js';
import { STRATEGY_COLUMNS, strategyRows, toCsv } from './roi-csv.js';
import {
  type BetCandidate,
  type OddsSource,
  pickPrices,
  type SimulationResult,
  simulateBets,
} from './simulation.js';

/** Two-way goals markets the simulation bets. */
const GOALS_MARKETS = ['ou25', 'btts'] as const;
type GoalsMarket = (typeof GOALS_MARKETS)[number];

/** The two prices (over/yes first) a bettor would have taken (see {@link pickPrices}). */
export function pickGoalsOdds(
  rec: OddsRecord,
  market: GoalsMarket,
  source: OddsSource,
): [number, number] | null {
  const sides = market === 'ou25' ? (['over25', 'under25'] as const) : (['btts_yes', 'btts_no'] as const);
  return pickPrices(rec, sides, source) as [number, number] | null;
}

/** A two-way market as a candidate: outcome 0 = over/yes, 1 = under/no (`home` = always over/yes). */
export function twoWayCandidate(
  base: Omit<BetCandidate, 'proba' | 'odds' | 'outcome'>,
  pFirst: number,
  odds: [number, number],
  firstWon: boolean,
): BetCandidate {
  return { ...base, outcome: firstWon ? 0 : 1, proba: [pFirst, 1 - pFirst], odds };
}

interface GoalsSimulationResult {
  market: GoalsMarket;
  sim: SimulationResult;
}

/** `roi_by_region_markets.csv`: per market, model and baselines (`home` = always over/yes), per region. */
export function roiMarketsCsv(results: readonly GoalsSimulationResult[]): string {
  return toCsv(
    ['market', ...STRATEGY_COLUMNS],
    results.flatMap(({ market, sim }) =>
      strategyRows(sim, (s) => ({ market, strategy: s.strategy === 'home' ? 'always_first' : s.strategy })),
    ),
  );
}

/** Flat stakes on O/U 2.5 and BTTS of the goals model's out-of-sample rows; null without a markets file. */
export async function runGoalsSimulateStage(
  deps: AnalyticsDeps,
  opts: { asOf?: Date } = {},
): Promise<GoalsSimulationResult[] | null> {
  const asOf = opts.asOf ?? new Date();
  const rows = await readParquetObject(deps, 'markets');
  if (!rows) return null;
  const matches = new Map((await matchesOf(deps)).map((m) => [m.id, m]));
  const odds = new Map((await readOddsFile(deps.store)).map((o) => [o.match_id, o]));
  const regions = regionsOf(matches.values());
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
      const price = rec ? pickGoalsOdds(rec, market, 'closing') : null;
      if (!price) continue;
      const mk = marketsFromMatrix(
        scoreMatrix(Number(r.expected_home_goals), Number(r.expected_away_goals), Number(r.rho)),
        1,
      );
      const p = market === 'ou25' ? mk.over['2.5'] : mk.btts_yes;
      const won = market === 'ou25' ? m.homeScore + m.awayScore > 2.5 : m.homeScore > 0 && m.awayScore > 0;
      const base = { match_id: m.id, region_id: m.regionId, region_name: m.regionName, season: m.season };
      candidates.push(twoWayCandidate(base, p, price, won));
    }
    results.push({
      market,
      sim: simulateBets(candidates, { edgeThreshold: deps.config.edgeThreshold, regions }),
    });
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
