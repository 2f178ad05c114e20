import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  computeAnalystData,
  csvChunks,
  EXPORT_COLUMNS,
  EXPORT_DATASETS,
  EXPORT_FORMATS,
  type ExportDataset,
  type ExportFormat,
  exportRows,
  loadAnalystSources,
  parquetChunks,
} from '../analytics/index.js';
import { loadEnv, parseConfig } from '../config.js';
import { openDatabase } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import { createLogger } from '../logger.js';
import { createObjectStore } from '../storage/index.js';
import { readLiveServer, storedApiKey } from './server-file.js';
import { parseCliArgs, showHelp, UsageError } from './usage-error.js';

const USAGE = `Usage: matchcast export <predictions|backtest|bets> [options]

  Writes the dataset of the published run, the same file GET /predict/export/{dataset} serves.

Options:
  --format csv|parquet   default csv
  --from <date>          first kick-off included (YYYY-MM-DD = 00:00 UTC, or ISO 8601)
  --to <date>            kick-offs before this instant
  --region <id|name>     one region
  --out <file>           default stdout

While \`matchcast start\` runs on the same DATA_DIR (its database admits one process), the file is
fetched from that server; otherwise it is computed from the database and the object store.`;

function instant(name: string, v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name} is not a date: ${v}`);
  return d;
}

/** `matchcast export` — exit code 0 ok, 1 failure, 2 usage error. */
export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    strings: ['format', 'from', 'to', 'region', 'out'],
    positionals: true,
  });
  if (values.help) return showHelp(USAGE);
  const dataset = positionals[0] as ExportDataset | undefined;
  if (!dataset || positionals.length > 1 || !(EXPORT_DATASETS as readonly string[]).includes(dataset)) {
    throw new UsageError(`expected one dataset: ${EXPORT_DATASETS.join(', ')}`);
  }
  const format = (values.format ?? 'csv') as ExportFormat;
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
  }
  const filter = { from: instant('from', values.from), to: instant('to', values.to), region: values.region };
  const config = parseConfig(loadEnv());
  const sink: Writable = values.out ? createWriteStream(values.out) : process.stdout;

  const server = readLiveServer(config.dataDir);
  if (server) {
    const q = new URLSearchParams({ format });
    for (const k of ['from', 'to', 'region'] as const) if (values[k]) q.set(k, values[k]);
    const key = await storedApiKey(config);
    const res = await fetch(`${server.url}/predict/export/${dataset}?${q}`, {
      headers: key ? { 'x-api-key': key } : {},
    });
    if (!res.ok || !res.body)
      throw new MatchcastError(
        'MC_ERR_INTERNAL',
        `the running server answered ${res.status}: ${await res.text()}`,
      );
    await pipeline(Readable.fromWeb(res.body as never), sink);
    return 0;
  }

  const log = createLogger(config.logLevel);
  const store = createObjectStore(config, log);
  const db = await openDatabase(config);
  try {
    const data = computeAnalystData(await loadAnalystSources(store, db), config.edgeThreshold);
    const rows = exportRows(data, dataset, filter);
    const columns = EXPORT_COLUMNS[dataset];
    const chunks =
      format === 'csv'
        ? csvChunks(columns, rows)
        : parquetChunks(columns, rows, { dataset, run_id: data.runId ?? '', demargin: 'power' });
    await pipeline(Readable.from(chunks), sink);
    return 0;
  } finally {
    await Promise.allSettled([db.close(), store.close()]);
  }
}
