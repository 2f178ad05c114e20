import type { Queryable } from '../db/index.js';
import type { Match } from '../domain/index.js';
import { buildFeatureRows, type FeatureRow } from '../features/index.js';
import type { WalkForwardResult } from '../model/index.js';
import type { ObjectStore } from '../storage/index.js';
import { readOddsMap, readOddsTimeline } from './odds.js';

/** The feature rows of every match at kick-off (latest odds by then). Never served: only backtested. */
export async function kickoffFeatureRows(
  src: { db: Queryable; store: ObjectStore },
  matches: readonly Match[],
  asOf: Date,
): Promise<FeatureRow[]> {
  const odds = await readOddsMap(src.store);
  const observations = await readOddsTimeline(src, odds, matches);
  return buildFeatureRows(matches, odds, asOf, { observations, horizon: 'kickoff' });
}

/** Quality of one horizon against its own market line, on the matches that have both lines. */
interface HorizonQuality {
  /** `opening` at the early horizon, `closing` at kick-off. */
  line: 'opening' | 'closing';
  n: number;
  model_log_loss: number;
  line_log_loss: number;
  /** model − line (negative = the model beats its line). */
  log_loss_gap: number;
  model_brier: number;
  line_brier: number;
}

export interface HorizonReport {
  overall: HorizonQuality;
  by_region: Record<string, HorizonQuality>;
}

function quality(m: Record<string, number>, line: 'opening' | 'closing'): HorizonQuality {
  const p = line === 'opening' ? 'open_' : 'close_';
  const model = m.both_model_log_loss ?? Number.NaN;
  const market = m[`${p}log_loss`] ?? Number.NaN;
  return {
    line,
    n: m[`${p}n`] ?? m.both_model_n ?? 0,
    model_log_loss: model,
    line_log_loss: market,
    log_loss_gap: model - market,
    model_brier: m.both_model_brier ?? Number.NaN,
    line_brier: m[`${p}brier`] ?? Number.NaN,
  };
}

/** One horizon of `horizons` in backtest_metrics.json against its line, overall and per region. */
export function horizonReport(
  metrics: WalkForwardResult['metrics'],
  line: 'opening' | 'closing',
): HorizonReport {
  const regions = Object.entries(metrics.by_region).map(([region, m]) => [region, quality(m, line)]);
  return { overall: quality(metrics.overall, line), by_region: Object.fromEntries(regions) };
}
