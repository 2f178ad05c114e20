import { ROI_BY_REGION_COLUMNS } from '../schemas/index.js';
import { csvCell } from './export-encode.js';
import type { SimulationResult, StrategyResult } from './simulation.js';

type CsvRow = Readonly<Record<string, string | number | null>>;

/** A report CSV of the `header` fields of `rows`: the export's cells, numbers rounded to 6 decimals. */
export function toCsv(header: readonly string[], rows: readonly CsvRow[]): string {
  const cell = (v: string | number | null) => csvCell(typeof v === 'number' ? Number(v.toFixed(6)) : v);
  return `${[header.join(','), ...rows.map((r) => header.map((h) => cell(r[h])).join(','))].join('\n')}\n`;
}

/** `roi_by_region.csv`: one row per region; a region without a bet has n_bets 0 and empty roi_pct/hit_rate. */
export function roiByRegionCsv(rows: StrategyResult['by_region']): string {
  return toCsv(ROI_BY_REGION_COLUMNS, rows);
}

/** The figures of a region's row, after its name (and season). */
const FIGURE_COLUMNS = ['roi_pct', 'n_bets', 'hit_rate', 'profit', 'region_id'];

/** `roi_by_region_season.csv`: the model's figures per region and season. */
export function roiByRegionSeasonCsv(rows: StrategyResult['by_region_season']): string {
  return toCsv(['region_name', 'season', ...FIGURE_COLUMNS], rows);
}

/** Header of the strategies' rows (see {@link strategyRows}). */
export const STRATEGY_COLUMNS = ['strategy', 'region_name', ...FIGURE_COLUMNS];

/** Model, favourite and home: `lead`'s fields, then figures in total (region `ALL`) and per region. */
export function strategyRows(sim: SimulationResult, lead: (s: StrategyResult) => CsvRow): CsvRow[] {
  return [sim.model, sim.baselines.favourite, sim.baselines.home].flatMap((s) =>
    [{ ...s.total, region_name: 'ALL', region_id: null }, ...s.by_region].map((r) => ({ ...lead(s), ...r })),
  );
}

/** `roi_baselines.csv`: the three strategies side by side on the same candidates, total and per region. */
export function roiBaselinesCsv(sim: SimulationResult): string {
  return toCsv(
    STRATEGY_COLUMNS,
    strategyRows(sim, (s) => ({ strategy: s.strategy })),
  );
}
