import { applyMatches } from './ingest-path.js';
import { mergeOddsFile } from './odds-file.js';
import { generateSyntheticLeague, type SyntheticOptions } from './synthetic.js';
import type { IngestDeps, IngestReport } from './types.js';

/** Generates the synthetic league and loads it like a source file: one transaction, then the odds file. */
export async function ingestSynthetic(options: SyntheticOptions, deps: IngestDeps): Promise<IngestReport> {
  const started = performance.now();
  const league = generateSyntheticLeague(options);
  const applied = await applyMatches(
    deps,
    league.matches.map((m, i) => ({ line: i + 1, match: m.match, odds: m.odds })),
  );
  const odds = await mergeOddsFile(deps.store, applied.odds);
  const report: IngestReport = {
    files: 0,
    rowsRead: league.matches.length,
    inserted: applied.inserted,
    updated: applied.updated,
    unchanged: applied.unchanged,
    skipped: [],
    oddsRows: odds.rows,
    ms: Math.round(performance.now() - started),
  };
  deps.log?.info({ ...report, regions: league.regions.length }, 'ingest: synthetic league applied');
  return report;
}
