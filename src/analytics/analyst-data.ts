import { MatchcastError } from '../domain/index.js';
import {
  type AnalystColumn,
  type AnalystRow,
  BACKTEST_EXPORT_COLUMNS,
  BET_EXPORT_COLUMNS,
  PREDICTION_EXPORT_COLUMNS,
} from './analyst-columns.js';
import { backtestExportRows, predictionExportRows } from './analyst-rows.js';
import type { AnalystSources } from './analyst-sources.js';
import { type Bet, simulateAnalystBets } from './bets.js';
import { regionsOf } from './io.js';

/** The datasets an analyst can take away. */
export const EXPORT_DATASETS = ['predictions', 'backtest', 'bets'] as const;
export type ExportDataset = (typeof EXPORT_DATASETS)[number];

export const EXPORT_COLUMNS: Record<ExportDataset, readonly AnalystColumn[]> = {
  predictions: PREDICTION_EXPORT_COLUMNS,
  backtest: BACKTEST_EXPORT_COLUMNS,
  bets: BET_EXPORT_COLUMNS,
};

/** The rows every analyst figure, chart and export is computed from (one published run). */
export interface AnalystData {
  runId: string | null;
  /** Region id → name of the ingested matches (the `region` filter); the far larger sources are not kept. */
  regions: ReadonlyMap<number, string>;
  predictions: AnalystRow[];
  backtest: AnalystRow[];
  /** The stake rule of the bets ({@link analystBets}). */
  edgeThreshold: number;
}

/** The bets last simulated for each data set, while anything still holds them. */
const simulated = new WeakMap<AnalystData, WeakRef<Bet[]>>();

/** The backtest's simulated bets, shared while held and re-simulated once collected (never kept at rest). */
export function analystBets(data: AnalystData): Bet[] {
  const known = simulated.get(data)?.deref();
  if (known) return known;
  const bets = simulateAnalystBets(data.backtest, data.edgeThreshold);
  simulated.set(data, new WeakRef(bets));
  return bets;
}

export function computeAnalystData(sources: AnalystSources, edgeThreshold: number): AnalystData {
  return {
    runId: sources.runId,
    regions: regionsOf(sources.matches.values()),
    predictions: predictionExportRows(sources),
    backtest: backtestExportRows(sources),
    edgeThreshold,
  };
}

/** Which rows of a dataset: kick-off in [from, to), one region (id or name, case-insensitive). */
export interface ExportFilter {
  from?: Date;
  to?: Date;
  region?: string;
}

/** Rows passing `filter` by kick-off; an unknown region or `from` ≥ `to` is MC_ERR_VALIDATION, not empty. */
export function exportRows(
  data: AnalystData,
  dataset: ExportDataset,
  filter: ExportFilter = {},
): AnalystRow[] {
  if (filter.from && filter.to && !(filter.from < filter.to)) {
    throw new MatchcastError('MC_ERR_VALIDATION', '`from` must be before `to`');
  }
  let regionId: number | null = null;
  if (filter.region) {
    const want = filter.region.trim().toLowerCase();
    const found = [...data.regions].find(([id, name]) => String(id) === want || name.toLowerCase() === want);
    if (!found)
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `unknown region "${filter.region}" (a region id or name)`,
      );
    regionId = found[0];
  }
  const rows = (dataset === 'bets' ? analystBets(data) : data[dataset]) as unknown as AnalystRow[];
  const fromMs = filter.from?.getTime() ?? Number.NEGATIVE_INFINITY;
  const toMs = filter.to?.getTime() ?? Number.POSITIVE_INFINITY;
  if (regionId === null && !filter.from && !filter.to) return rows;
  return rows.filter((r) => {
    if (regionId !== null && r.region_id !== regionId) return false;
    const t = r.start_time_utc instanceof Date ? r.start_time_utc.getTime() : Number.NaN;
    return t >= fromMs && t < toMs;
  });
}
