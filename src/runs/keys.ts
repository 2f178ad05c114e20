import { randomBytes } from 'node:crypto';
import { type Bucket, KEYS } from '../domain/index.js';

export type ArtifactName = keyof typeof KEYS;

export const RUNS_PREFIX = 'runs/';

/** Pipeline run ids sort by creation time: `20261123T145800Z-1a2b3c4d`. */
const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;

export function newPipelineRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

export function isPipelineRunId(value: unknown): value is string {
  return typeof value === 'string' && RUN_ID.test(value);
}

/** Where run `runId` keeps artifact `name`: `<bucket>/runs/<run_id>/<KEYS[name].key>`. */
export function runArtifactRef(runId: string, name: ArtifactName): { bucket: Bucket; key: string } {
  const k = KEYS[name];
  return { bucket: k.bucket, key: `${RUNS_PREFIX}${runId}/${k.key}` };
}

/** Where run `runId` keeps an extra file (a report that is not in `KEYS`). */
export function runFileKey(runId: string, file: string): string {
  return `${RUNS_PREFIX}${runId}/${file}`;
}

/** The `KEYS` name of a bucket/key pair, or null when it is not a run-scoped artifact. */
export function artifactNameOf(bucket: Bucket, key: string): ArtifactName | null {
  for (const name of Object.keys(KEYS) as ArtifactName[]) {
    if (KEYS[name].bucket === bucket && KEYS[name].key === key) return name;
  }
  return null;
}
