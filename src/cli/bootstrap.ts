import { loadEnv, parseConfig } from '../config.js';
import { MatchesRepository } from '../db/index.js';
import { isMatchcastError } from '../domain/index.js';
import { ingestPath, ingestSynthetic } from '../ingest/index.js';
import { bootstrapFirstRun, openPipelineDeps } from '../pipeline/index.js';
import { dateOption, parseCliArgs, showHelp } from './usage-error.js';

const USAGE = `Usage: matchcast bootstrap [--data <path> | --synthetic] [--as-of ISO]

Brings an empty deployment (the database and object store of the settings: PostgreSQL, S3 or a shared
folder) to serving in one command: ingests the data when the database holds no match, runs the whole
pipeline, and signs off a first champion — the first version becomes champion when none exists, even
when it trails the market line (serving nothing is worse; the history says so) — with a challenger of
the other family beside it; the better of the two by validation log loss is champion. Later promotions
keep the guard (\`pipeline run\` + \`registry promote\`). Run again, it does only what is missing.

  --data <path>   CSV file or folder to ingest when the database is empty (shared layout or football-data.co.uk)
  --synthetic     generate the synthetic multi-region league instead (the default without --data)
  --as-of <ISO>   "now" of the pipeline run (default: now)

Exit code 0 when a champion serves, 1 on failure, 2 on bad usage.`;

/** `matchcast bootstrap`: ingest (when empty) → pipeline run → first champion and challenger. */
export async function bootstrapCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs(argv, { strings: ['data', 'as-of'], booleans: ['synthetic'] });
  if (values.help) return showHelp(USAGE);
  if (values.data !== undefined && values.synthetic) {
    process.stderr.write(`matchcast bootstrap: --data and --synthetic exclude each other\n\n${USAGE}\n`);
    return 2;
  }
  const asOf = dateOption('as-of', values['as-of']) ?? new Date();
  const config = parseConfig(loadEnv());
  const deps = await openPipelineDeps(config);
  try {
    const matches = await new MatchesRepository(deps.db).count();
    if (matches === 0) {
      const report = values.data
        ? await ingestPath(values.data, deps)
        : await ingestSynthetic({ now: asOf }, deps);
      process.stdout.write(
        `ingested ${report.inserted} matches from ${values.data ?? 'the synthetic league'}\n`,
      );
    } else process.stdout.write(`the database holds ${matches} matches: nothing ingested\n`);
    const result = await bootstrapFirstRun(deps, asOf);
    const champion = await deps.registry.resolve('champion');
    const challenger = await deps.registry.resolve('challenger');
    if (!champion) {
      process.stderr.write('matchcast bootstrap: no version could be trained: no champion serves\n');
      return 1;
    }
    const history = (await deps.registry.history()).filter((e) => e.alias === 'champion').at(-1);
    process.stdout.write(
      [
        result.ran ? 'bootstrap finished' : 'already bootstrapped: nothing to do',
        `champion: version ${champion.version} (${champion.params.family ?? '?'}, validation log loss ${champion.metrics.log_loss?.toFixed(4) ?? '-'})${history?.reason ? ` — ${history.reason}` : ''}`,
        `challenger: ${challenger ? `version ${challenger.version} (${challenger.params.family ?? '?'}, validation log loss ${challenger.metrics.log_loss?.toFixed(4) ?? '-'})` : 'none'}`,
        '',
      ].join('\n'),
    );
    return 0;
  } catch (err) {
    if (isMatchcastError(err)) {
      process.stderr.write(`matchcast bootstrap: ${err.message} [${err.code}]\n`);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}
