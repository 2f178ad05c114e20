// The child process that computes the analyst rows (analyst-off-thread.ts forks it): the sources it
// reads live and die with this process, so the server only ever holds the rows.
import { openDatabase } from '../db/index.js';
import { createLogger } from '../logger.js';
import { createObjectStore } from '../storage/index.js';
import { computeAnalystData } from './analyst-data.js';
import {
  type AnalystJob,
  type AnalystMessage,
  ROW_DATASETS,
  ROWS_PER_MESSAGE,
} from './analyst-off-thread.js';
import { loadAnalystSources } from './analyst-sources.js';
import { backtestSummary } from './backtest-summary.js';

const send = (msg: AnalystMessage) => new Promise<void>((done) => process.send!(msg, () => done()));

async function run({ config, schema, runId, summary }: AnalystJob): Promise<AnalystMessage> {
  const log = createLogger(config.logLevel, 'analyst');
  const store = createObjectStore(config, log);
  try {
    const db = await openDatabase(config, { maxConnections: 2, ...(schema ? { schema } : {}) });
    try {
      const sources = await loadAnalystSources(store, db);
      // Another database than the caller's (it must read the run the caller sees): refuse.
      if (sources.runId !== runId) throw new Error(`published run ${sources.runId}, expected ${runId}`);
      const data = computeAnalystData(sources, config.edgeThreshold);
      if (summary) return { t: 'summary', summary: backtestSummary(data) };
      const { predictions, backtest, ...rest } = data;
      const lists: Record<(typeof ROW_DATASETS)[number], object[]> = { predictions, backtest };
      for (const dataset of ROW_DATASETS) {
        for (let i = 0; i < lists[dataset].length; i += ROWS_PER_MESSAGE) {
          await send({ t: 'rows', dataset, rows: lists[dataset].slice(i, i + ROWS_PER_MESSAGE) });
        }
      }
      return { t: 'data', data: rest };
    } finally {
      await db.close();
    }
  } catch (err) {
    return { t: 'error', message: err instanceof Error ? err.message : String(err) };
  } finally {
    await store.close();
  }
}

process.once('message', async (job: AnalystJob) => {
  await send(await run(job));
  process.exit(0);
});
// The server went away: nothing to answer.
process.once('disconnect', () => process.exit(0));
