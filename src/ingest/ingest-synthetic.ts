import { applyMatches, SYNTHETIC_FILE, startRun, storeObservations } from './ingest-path.js';
import { type SyntheticOptions, streamSyntheticLeague } from './synthetic.js';
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
 * Generates the synthetic league and loads it like source files, one season at a time (each in one
 * transaction), then the odds observations (stamped with the league's own `now`) and the odds file.
 */
export async function ingestSynthetic(options: SyntheticOptions, deps: IngestDeps): Promise<IngestReport> {
  const run = startRun();
  const { report } = run;
  const league = streamSyntheticLeague(options);
  const now = options.now ?? new Date();
  for (const season of league.seasons) {
    const parsed = season.map((m, i) => ({
      line: report.rowsRead + i + 1,
      match: m.match,
      prices: priceSets(m.odds),
      source: m.odds.source,
    }));
    await applyMatches(deps, run, parsed, SYNTHETIC_FILE, { now });
    report.rowsRead += season.length;
  }
  await storeObservations(deps, run);
  const { changedMatchIds, ...logged } = report;
  deps.log?.info(
    { ...logged, changed_matches: changedMatchIds.length, regions: league.regions.length },
    'ingest: synthetic league applied',
  );
  return report;
}
