import { parseArgs } from 'node:util';
import { parseConfig } from '../config.js';
import { MatchcastError } from '../domain/index.js';
import { createLogger } from '../logger.js';
import { openRuntime } from '../runtime.js';
import { runServer } from './server.js';

const HELP = `matchcast serve — the HTTP API (production entry point)

Reads every setting from the environment (README). API_KEY is required. With REDIS_URL the live path
dispatches to \`matchcast worker\` processes; without it, tasks run on in-process worker threads.`;

/** `matchcast serve`: refuses to start without API_KEY. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const config = parseConfig();
  if (!config.apiKey) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      'Invalid setting API_KEY: `matchcast serve` requires an API key',
    );
  }
  const log = createLogger(config.logLevel, 'matchcast-api');
  const ctx = await openRuntime(config, log, { role: 'api' });
  return runServer(ctx);
}
