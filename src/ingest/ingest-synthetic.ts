import { applyMatches, SYNTHETIC_FILE, startRun, storeObservations } from './ingest-path.js';
import { type SyntheticOptions, streamSyntheticLeague } from './synthetic.js';
import type { IngestDeps, IngestReport } from './types.js';

/** Loads the synthetic league like source files, a season per transaction, stamped with its own `now`. */
export async function ingestSynthetic(options: SyntheticOptions, deps: IngestDeps): Promise<IngestReport> {
  const run = startRun();
  const { report } = run;
  const league = streamSyntheticLeague(options);
  const now = options.now ?? new Date();
  for (const season of league.seasons) {
    const parsed = season.map((m, i) => ({ ...m, line: report.rowsRead + i + 1 }));
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
