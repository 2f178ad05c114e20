import { KEYS, MatchcastError } from '../domain/index.js';
import { readOddsFile } from '../ingest/index.js';
import {
  type AnalyticsDeps,
  asDate,
  matchesOf,
  numOrNull,
  outcomeOf,
  putReport,
  readParquetObject,
  regionsOf,
} from './io.js';
import { roiBaselinesCsv, roiByRegionCsv, roiByRegionSeasonCsv } from './roi-csv.js';
import { type OddsSource, type ResultInput, selectCandidates, simulateBets } from './simulation.js';

/** Keys the simulate stage writes in the `reports` bucket. */
const SIMULATION_KEYS = {
  byRegion: KEYS.roiByRegion.key,
  byRegionSeason: 'roi_by_region_season.csv',
  baselines: 'roi_baselines.csv',
  summary: 'roi_summary.json',
} as const;

interface SimulateStageOptions {
  /** Minimum edge to bet. Default `config.edgeThreshold` (EDGE_THRESHOLD, 0.05). Never tuned on the evaluated period. */
  edgeThreshold?: number;
  /** Odds taken. Default `closing` (conservative; see docs/analytics.md). */
  oddsSource?: OddsSource;
  /** Results of matches kicking off at or after this instant are ignored. Default: now. */
  asOf?: Date;
}

/** `pipeline simulate`: flat bets on the backtest, `roi_by_region.csv` and companions (spec §2.6). */
export async function runSimulateStage(deps: AnalyticsDeps, opts: SimulateStageOptions = {}) {
  const { store, log } = deps;
  const threshold = opts.edgeThreshold ?? deps.config.edgeThreshold;
  const oddsSource = opts.oddsSource ?? 'closing';
  const now = new Date();
  const asOf = opts.asOf ?? now;

  const backtest = await readParquetObject(deps, 'backtest');
  if (!backtest) {
    throw new MatchcastError(
      'MC_ERR_PREDICTIONS_UNAVAILABLE',
      'predictions/backtest.parquet not found: run `matchcast pipeline train` first',
    );
  }
  const matches = await matchesOf(deps);
  const odds = new Map((await readOddsFile(store)).map((o) => [o.match_id, o]));

  const kickoff = new Map(matches.map((m) => [m.id, m.startTimeUtc]));
  const results = new Map<number, ResultInput>(
    matches.map((m) => [
      m.id,
      {
        match_id: m.id,
        region_id: m.regionId,
        region_name: m.regionName,
        season: m.season,
        outcome: m.startTimeUtc < asOf ? outcomeOf(m) : null,
      },
    ]),
  );

  // Out of sample only: a backtest row whose match kicked off before its fold's training cutoff was
  // (or could have been) in that fold's training data, so it is dropped.
  let inSample = 0;
  const predictions = backtest.flatMap((r) => {
    const id = numOrNull(r.match_id);
    if (id === null) return [];
    const cutoff = asDate(r.training_cutoff);
    const start = kickoff.get(id);
    if (cutoff && start && start < cutoff) {
      inSample++;
      return [];
    }
    const p = (k: string) => numOrNull(r[k]) ?? Number.NaN;
    return [
      { match_id: id, proba_home: p('proba_home'), proba_draw: p('proba_draw'), proba_away: p('proba_away') },
    ];
  });

  const selection = selectCandidates(predictions, results, odds, oddsSource);
  const sim = simulateBets(selection.candidates, { edgeThreshold: threshold, regions: regionsOf(matches) });

  const starts = selection.candidates
    .map((c) => kickoff.get(c.match_id)!)
    .sort((a, b) => a.getTime() - b.getTime());
  const files = Object.values(SIMULATION_KEYS);
  const summary = {
    generated_at: now.toISOString(),
    as_of: asOf.toISOString(),
    edge_threshold: threshold,
    odds_source: oddsSource,
    stake: 1,
    n_backtest_rows: backtest.length,
    n_candidates: sim.n_candidates,
    excluded: { in_sample: inSample, ...selection.excluded },
    period: {
      first_match: starts[0]?.toISOString() ?? null,
      last_match: starts.at(-1)?.toISOString() ?? null,
    },
    model: sim.model.total,
    baselines: { favourite: sim.baselines.favourite.total, home: sim.baselines.home.total },
    by_region: sim.model.by_region,
    files,
  };

  await putReport(store, SIMULATION_KEYS.byRegionSeason, roiByRegionSeasonCsv(sim.model.by_region_season));
  await putReport(store, SIMULATION_KEYS.baselines, roiBaselinesCsv(sim));
  await putReport(store, SIMULATION_KEYS.summary, `${JSON.stringify(summary, null, 2)}\n`);
  // Last: serving re-reads this file, so it only changes once its companions are in place.
  await putReport(store, SIMULATION_KEYS.byRegion, roiByRegionCsv(sim.model.by_region));

  log.info(
    {
      stage: 'simulate',
      edge_threshold: threshold,
      odds_source: oddsSource,
      candidates: sim.n_candidates,
      bets: sim.model.total.n_bets,
      roi_pct: sim.model.total.roi_pct,
      favourite_roi_pct: sim.baselines.favourite.total.roi_pct,
      home_roi_pct: sim.baselines.home.total.roi_pct,
      regions: sim.model.by_region.length,
    },
    'betting simulation written',
  );
  return { summary, keys: files };
}
