import { randomBytes } from 'node:crypto';

/** A new run id: 32 lowercase hex characters, like MLflow's. */
export function newRunId(): string {
  return randomBytes(16).toString('hex');
}

export function isRunId(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value);
}
