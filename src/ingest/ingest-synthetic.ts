import { applyMatches, emptyReport, SYNTHETIC_FILE, storeObservations } from './ingest-path.js';
import { generateSyntheticLeague, type SyntheticOptions } from './synthetic.js';
import type { IngestDeps, IngestReport, OddsInput, PriceSet } from './types.js';

function priceSets(o: OddsInput): PriceSet[] {
  const out: PriceSet[] = [];
  const open = [o.open_home, o.open_draw, o.open_away];
  const close = [o.close_home, o.close_draw, o.close_away];
  if (open.every((v) => v !== null)) out.push({ market: '1x2', kind: 'opening', prices: open as number[] });
  if (close.every((v) => v !== null)) out.push({ market: '1x2', kind: 'closing', prices: close as number[] });
  return out;
}

/**
 * Generates the synthetic league and loads it like a source file: one transaction, then the odds
 * observations (stamped with the league's own `now`) and the odds file.
 */
export async function ingestSynthetic(options: SyntheticOptions, deps: IngestDeps): Promise<IngestReport> {
  const started = performance.now();
  const league = generateSyntheticLeague(options);
  const now = options.now ?? new Date();
  const applied = await applyMatches(
    deps,
    league.matches.map((m, i) => ({
      line: i + 1,
      match: m.match,
      prices: priceSets(m.odds),
      source: m.odds.source,
    })),
    SYNTHETIC_FILE,
    { now },
  );
  const report = emptyReport();
  report.rowsRead = league.matches.length;
  report.inserted = applied.inserted;
  report.updated = applied.updated;
  report.unchanged = applied.unchanged;
  report.conflicts = applied.conflicts;
  await storeObservations(deps, applied.observations, report, new Set(applied.changed));
  report.ms = Math.round(performance.now() - started);
  const { changedMatchIds, ...logged } = report;
  deps.log?.info(
    { ...logged, changed_matches: changedMatchIds.length, regions: league.regions.length },
    'ingest: synthetic league applied',
  );
  return report;
}
