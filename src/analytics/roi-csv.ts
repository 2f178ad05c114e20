import { ROI_BY_REGION_COLUMNS } from '../schemas/index.js';
import { csvCell } from './export-encode.js';
import type { SimulationResult, StrategyResult } from './simulation.js';

/** A report CSV: the export's cells, numbers rounded to 6 decimals. */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): string {
  const cell = (v: string | number | null) => csvCell(typeof v === 'number' ? Number(v.toFixed(6)) : v);
  return `${[header.join(','), ...rows.map((r) => r.map(cell).join(','))].join('\n')}\n`;
}

/** `roi_by_region.csv`: one row per region; a region without a bet has n_bets 0 and empty roi_pct/hit_rate. */
export function roiByRegionCsv(rows: StrategyResult['by_region']): string {
  return toCsv(
    ROI_BY_REGION_COLUMNS,
    rows.map((r) => [r.region_name, r.roi_pct, r.n_bets, r.hit_rate, r.region_id]),
  );
}

/** The figures of a region's row, after its name (and season). */
const FIGURE_COLUMNS = ['roi_pct', 'n_bets', 'hit_rate', 'profit', 'region_id'];

/** `roi_by_region_season.csv`: the model's figures per region and season. */
export function roiByRegionSeasonCsv(rows: StrategyResult['by_region_season']): string {
  return toCsv(
    ['region_name', 'season', ...FIGURE_COLUMNS],
    rows.map((r) => [r.region_name, r.season, r.roi_pct, r.n_bets, r.hit_rate, r.profit, r.region_id]),
  );
}

/** The model first, then the favourite and home baselines. */
export function strategiesOf(sim: SimulationResult): StrategyResult[] {
  return [sim.model, sim.baselines.favourite, sim.baselines.home];
}

/** Header of a strategy's rows (see {@link strategyRows}). */
export const STRATEGY_COLUMNS = ['strategy', 'region_name', ...FIGURE_COLUMNS];

/** `lead` columns, then a strategy's figures in total (region `ALL`, empty region_id) and per region. */
export function strategyRows(s: StrategyResult, lead: readonly string[]): (string | number | null)[][] {
  const regions = [{ ...s.total, region_name: 'ALL', region_id: null }, ...s.by_region];
  return regions.map((r) => [...lead, r.region_name, r.roi_pct, r.n_bets, r.hit_rate, r.profit, r.region_id]);
}

/**
 * `roi_baselines.csv`: model, favourite and home strategies side by side, per region and in total
 * (region_name `ALL`, empty region_id), all on the same candidate matches.
 */
export function roiBaselinesCsv(sim: SimulationResult): string {
  return toCsv(
    STRATEGY_COLUMNS,
    strategiesOf(sim).flatMap((s) => strategyRows(s, [s.strategy])),
  );
}
