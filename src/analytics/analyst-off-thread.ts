import type { Config } from '../config.js';
import { forkModule, rowShape, siblingModule } from '../domain/index.js';
import type { BacktestSummary } from '../schemas/index.js';
import type { AnalystData } from './analyst-data.js';

const CHILD = siblingModule(import.meta.url, './analyst-child');

/** The analyst rows of published run `runId`, from a child process: the sources' heap is never ours. */
export async function computeAnalystDataOffThread(
  config: Config,
  runId: string | null,
  schema?: string,
): Promise<AnalystData> {
  const compact = rowCompactor();
  const received: Record<RowDataset, object[]> = { predictions: [], backtest: [] };
  return inChild({ config, schema, runId }, (msg, resolve) => {
    if (msg.t === 'rows') for (const row of msg.rows) received[msg.dataset].push(compact(row));
    else if (msg.t === 'data') resolve({ ...msg.data, ...received } as AnalystData);
  });
}

/** The backtest figures of the published run `runId` from a child process: its rows are never held here. */
export function computeBacktestSummaryOffThread(
  config: Config,
  runId: string | null,
  schema?: string,
): Promise<BacktestSummary> {
  return inChild({ config, schema, runId, summary: true }, (msg, resolve) => {
    if (msg.t === 'summary') resolve(msg.summary);
  });
}

/** The job the analyst child runs. */
export interface AnalystJob {
  config: Config;
  schema?: string;
  runId: string | null;
  /** Answer the backtest figures alone, not the rows. */
  summary?: boolean;
}

async function inChild<T>(
  job: AnalystJob,
  onMessage: (msg: AnalystMessage, resolve: (value: T) => void) => void,
): Promise<T> {
  // Maps and Dates cross as they are (structured clone).
  const child = forkModule(CHILD, { serialization: 'advanced' });
  try {
    return await new Promise<T>((resolve, reject) => {
      child.on('message', (msg: AnalystMessage) => {
        if (msg.t === 'error') reject(new Error(`analyst process: ${msg.message}`));
        else onMessage(msg, resolve);
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`analyst process exited (${code})`)));
      child.send(job);
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}

/** The row lists of {@link AnalystData}, sent in chunks of {@link ROWS_PER_MESSAGE}. */
export const ROW_DATASETS = ['predictions', 'backtest'] as const;
type RowDataset = (typeof ROW_DATASETS)[number];
/** Small messages die young: each chunk's copy is reclaimed by a scavenge, not held to a full GC. */
export const ROWS_PER_MESSAGE = 2_000;

/** What the analyst child sends: chunks of rows, then the rest of the data (rows emptied). */
export type AnalystMessage =
  | { t: 'rows'; dataset: RowDataset; rows: object[] }
  | { t: 'data'; data: Omit<AnalystData, RowDataset> }
  | { t: 'summary'; summary: BacktestSummary }
  | { t: 'error'; message: string };

/** Structured-clone rows copy every string and Date: shared ones and one shape per key list save most. */
function rowCompactor(): (row: object) => object {
  const strings = new Map<string, string>();
  const dates = new Map<number, Date>();
  const shapes = new Map<string, () => Record<string, unknown>>();
  return (row) => {
    const keys = Object.keys(row);
    const signature = keys.join('\u0000');
    const out = (shapes.get(signature) ?? intern(shapes, signature, rowShape(keys)))();
    for (const k of keys) {
      const v = (row as Record<string, unknown>)[k];
      out[k] =
        typeof v === 'string' ? intern(strings, v, v) : v instanceof Date ? intern(dates, v.getTime(), v) : v;
    }
    return out;
  };
}

/** The value first seen under `key`, so that equal values share one copy. */
function intern<K, V>(known: Map<K, V>, key: K, value: V): V {
  const found = known.get(key);
  if (found !== undefined) return found;
  known.set(key, value);
  return value;
}
