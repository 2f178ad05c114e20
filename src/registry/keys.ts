/**
 * Where the registry keeps its documents inside the `models` bucket. One prefix per registered model
 * so that several models (MODEL_NAME) can share a store.
 */
export const REGISTRY_BUCKET = 'models' as const;

/** Width of the zero-padded history sequence number: keys sort in event order. */
const SEQ_WIDTH = 10;

export function registryPrefix(modelName: string): string {
  return `registry/${modelName}/`;
}

export function versionsPrefix(modelName: string): string {
  return `${registryPrefix(modelName)}versions/`;
}

export function versionKey(modelName: string, version: number | string): string {
  return `${versionsPrefix(modelName)}${version}.json`;
}

export function aliasesKey(modelName: string): string {
  return `${registryPrefix(modelName)}aliases.json`;
}

export function historyPrefix(modelName: string): string {
  return `${registryPrefix(modelName)}history/`;
}

export function historyKey(modelName: string, seq: number): string {
  return `${historyPrefix(modelName)}${String(seq).padStart(SEQ_WIDTH, '0')}.json`;
}

/** Parses `…/versions/<n>.json` back to n; null for anything else. */
export function versionFromKey(key: string): number | null {
  const m = /\/versions\/(\d+)\.json$/.exec(key);
  return m ? Number(m[1]) : null;
}

/** Runs the registry knows besides versions (e.g. walk-forward folds): `registry/<model>/runs/<run_id>.json`. */
export function registryRunKey(modelName: string, runId: string): string {
  return `${registryPrefix(modelName)}runs/${runId}.json`;
}
