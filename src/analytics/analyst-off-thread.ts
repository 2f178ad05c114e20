import type { Config } from '../config.js';
import { siblingModule, startModuleThread } from '../domain/index.js';
import type { AnalystData } from './analyst-data.js';

/**
 * Computes the analyst rows of the published run `runId` on a thread of its own, reading the
 * database and the object store that `config` names (`schema`: the caller's PostgreSQL schema).
 * Rejects when the thread fails or reads another published run than `runId`: the caller then
 * computes them itself.
 */
export async function computeAnalystDataOffThread(
  config: Config,
  runId: string | null,
  schema?: string,
): Promise<AnalystData> {
  const thread = startModuleThread(siblingModule(import.meta.url, './analyst-thread'), {
    config,
    schema,
    runId,
    workerName: 'analyst',
  });
  try {
    return await new Promise<AnalystData>((resolve, reject) => {
      thread.on('message', (msg: { t: string; data?: AnalystData; message?: string }) => {
        if (msg.t === 'data') resolve(msg.data as AnalystData);
        else reject(new Error(`analyst thread: ${msg.message}`));
      });
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`analyst thread exited (${code})`)));
    });
  } finally {
    await thread.terminate();
  }
}
