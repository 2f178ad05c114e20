import { hash } from 'node:crypto';
import { MatchcastError } from '../domain/index.js';
import type { ObjectStore, StoredObject } from '../storage/index.js';
import type { ArtifactRef } from './types.js';

/** The object `ref` names, or null when gone; MC_ERR_ARTIFACT_INTEGRITY when its size or SHA-256 changed. */
export async function readVerified(
  store: ObjectStore,
  ref: Pick<ArtifactRef, 'bucket' | 'key' | 'size' | 'sha256'>,
): Promise<StoredObject | null> {
  const obj = await store.get(ref.bucket, ref.key);
  if (!obj) return null;
  if (obj.body.length !== ref.size || hash('sha256', obj.body) !== ref.sha256) {
    throw new MatchcastError(
      'MC_ERR_ARTIFACT_INTEGRITY',
      `${ref.bucket}/${ref.key} does not match the size and SHA-256 recorded when it was published`,
    );
  }
  return obj;
}
