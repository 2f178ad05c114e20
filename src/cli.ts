import { SERVICE_VERSION } from './api/version.js';
import { isMatchcastError } from './domain/index.js';

const USAGE = `matchcast ${SERVICE_VERSION} — football match-outcome probabilities

Usage: matchcast <command> [options]

  start [--data <path>]            embedded stack on one process: ingest + pipeline on first start, then serve
  serve                            the HTTP API (production entry point; needs API_KEY)
  worker [--concurrency N]         an ml worker consuming the task queue (needs REDIS_URL)
  ingest --source <path>           import football CSVs (shared-data format or football-data.co.uk)
  ingest --synthetic [--seed N]    generate and import a synthetic multi-region league
  pipeline <stage> [--as-of ISO]   features | train | promote | backtest | predict | simulate | drift | run
  registry <command>               list | show <version> | alias set <alias> <version> | alias rm <alias> | promote | history

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
};

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
  return (await load())(rest);
}

main(process.argv.slice(2)).then(
  // Long-running commands (serve, worker, start) resolve only once they have shut down, so exiting
  // here never cuts work short; it stops a stray handle (a socket, a timer) from keeping a CLI alive.
  (code) => process.exit(code),
  (err: unknown) => {
    if (isMatchcastError(err)) console.error(`matchcast: ${err.message}`);
    else console.error(err);
    process.exit(1);
  },
);
