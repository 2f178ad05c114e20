import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';

/** The file under DATA_DIR that holds the admin key `matchcast start` generated (ADMIN_KEY unset). */
export const ADMIN_KEY_FILE = 'admin-key';

/** The admin key of the server on this DATA_DIR: ADMIN_KEY, else the generated one; undefined when neither. */
export async function readAdminKey(config: Config): Promise<string | undefined> {
  if (config.adminKey) return config.adminKey;
  try {
    const key = (await readFile(path.join(config.dataDir, ADMIN_KEY_FILE), 'utf8')).trim();
    return key.length >= 16 ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The config to hand a job to the running server with: the hand-off sends one key header, the key of
 * `config.apiKey`, and `/admin/*` takes the admin key (not the API key) there as well as in
 * X-Admin-Key. Unchanged when no admin key is known (the server then refuses the job with a 401).
 */
export async function handOffConfig(config: Config): Promise<Config> {
  const adminKey = await readAdminKey(config);
  return adminKey === undefined ? config : { ...config, apiKey: adminKey };
}
