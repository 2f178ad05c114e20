import { SERVICE_VERSION } from './api/version.js';
import { isMatchcastError } from './domain/index.js';

const USAGE = `matchcast ${SERVICE_VERSION} — football match-outcome probabilities

Usage: matchcast <command> [options]

  start [--data <path>]            embedded stack on one process: ingest + pipeline on first start, then serve
  start --data <path> --as-of <date> [--speed N]   replay the data as if "now" were <date>, clock running
  serve [--port N]                 the HTTP API (production entry point; needs API_KEY)
  worker [--concurrency N]         an ml worker consuming the task queue (needs REDIS_URL)
  ingest --source <path>           import football CSVs (shared-data format or football-data.co.uk)
  ingest --synthetic [--seed N]    generate and import a synthetic multi-region league
  pipeline <stage> [--as-of ISO]   features | train | promote | backtest | fallback | goals | predict | simulate | drift | performance | run
  registry <command>               list | show <version> | alias set <alias> <version> | alias rm <alias> | promote | history
  runs <command>                   list | show <id> | publish <id> | rollback <id> | history | prune (published pipeline runs)
  bootstrap [--data <path>]        an empty deployment to serving: ingest, pipeline run, first champion
  export <dataset> [--format csv|parquet]   predictions | backtest | bets of the published run (--from --to --region --out)
  sources <command>                add NAME URL [--every 15m] | list | poll [NAME] | remove NAME (polled data sources)
  teams <command>                  alias "SOURCE NAME" "KNOWN NAME" | add NAME --region R | aliases | unalias NAME

Settings come from the environment (see README); --help on a command shows its options.`;

type Command = (argv: string[]) => Promise<number>;

/** Each command is imported on demand so that `matchcast worker` does not load the HTTP stack, etc. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./cli/start.js')).startCommand,
  serve: async () => (await import('./cli/serve.js')).serveCommand,
  worker: async () => (await import('./cli/worker.js')).workerCommand,
  ingest: async () => (await import('./cli/ingest.js')).ingestCommand,
  pipeline: async () => (await import('./cli/pipeline.js')).pipelineCommand,
  registry: async () => (await import('./cli/registry.js')).registryCommand,
  runs: async () => (await import('./cli/runs.js')).runsCommand,
  bootstrap: async () => (await import('./cli/bootstrap.js')).bootstrapCommand,
  export: async () => (await import('./cli/export.js')).exportCommand,
  sources: async () => (await import('./cli/sources.js')).sourcesCommand,
  teams: async () => (await import('./cli/teams.js')).teamsCommand,
  // Internal: the child process of `start` that runs source polls and replay releases.
  '_work-child': async () => (await import('./cli/work-child.js')).workChildCommand,
};

/** A bad option or argument (parseArgs' `ERR_PARSE_ARGS_*`, or a `UsageError`): one line, usage, exit 2. */

function isUsageError(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) || err.name === 'UsageError';
}

/** The usage line of `command` from the top-level USAGE. */
function usageOf(command: string): string {
  const lines = USAGE.split('\n').filter((l) => l.startsWith(`  ${command} `));
  const forms = lines.map((l) => `  matchcast ${l.trim().replace(/\s{2,}.*$/, '')}`);
  return `Usage:\n${forms.join('\n')}\n(matchcast ${command} --help shows every option)`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    console.log(SERVICE_VERSION);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`Unknown command "${name}".\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    if (!isUsageError(err)) throw err;
    console.error(`matchcast ${name}: ${err.message.split('\n')[0]}\n${usageOf(name)}`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  // Long-running commands (serve, worker, start) resolve only once they have shut down, so exiting
  // here never cuts work short; it stops a stray handle (a socket, a timer) from keeping a CLI alive.
  (code) => process.exit(code),
  (err: unknown) => {
    if (isMatchcastError(err)) {
      // One line (a list of invalid settings follows it), the code on it.
      const [first, ...rest] = err.message.split('\n');
      console.error([`matchcast: ${first} [${err.code}]`, ...rest].join('\n'));
    } else console.error(err);
    process.exit(1);
  },
);
