import { loadEnv, parseConfig } from '../config.js';
import { MatchcastError } from '../domain/index.js';
import { createLogger } from '../logger.js';
import { openRuntime } from '../runtime.js';
import { assertPortFree, runServer } from './server.js';
import { parseCliArgs, portOption, showHelp } from './usage-error.js';

const HELP = `matchcast serve [--port N] — the HTTP API (production entry point)

Reads every setting from the environment (README). API_KEY is required. With REDIS_URL the live path
dispatches to \`matchcast worker\` processes; without it, tasks run on in-process worker threads.

Options:
  --port N   port to listen on, 0..65535 (default PORT or 8000; 0 = any free port)`;

/** `matchcast serve`: refuses to start without API_KEY, or on a port in use. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs(argv, { strings: ['port'] });
  if (values.help) return showHelp(HELP);
  const port = values.port === undefined ? undefined : portOption('port', values.port);
  const config = parseConfig({ ...loadEnv(), ...(port !== undefined ? { PORT: port } : {}) });
  if (!config.apiKey) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      'Invalid setting API_KEY: `matchcast serve` requires an API key',
    );
  }
  await assertPortFree(config.port, config.host);
  const log = createLogger(config.logLevel, 'matchcast-api');
  const ctx = await openRuntime(config, log, { role: 'api' });
  return runServer(ctx);
}
