import { createHash } from 'node:crypto';
import { MatchcastError } from '../domain/index.js';
import type { ObjectStore, StoredObject } from '../storage/index.js';
import type { ArtifactRef } from './types.js';

/**
 * Reads the object `ref` names and checks it against the size and SHA-256 recorded when it was
 * written: null when it is gone, MC_ERR_ARTIFACT_INTEGRITY when it was replaced or truncated.
 */
export async function readVerified(
  store: ObjectStore,
  ref: Pick<ArtifactRef, 'bucket' | 'key' | 'size' | 'sha256'>,
): Promise<StoredObject | null> {
  const obj = await store.get(ref.bucket, ref.key);
  if (!obj) return null;
  if (obj.body.length !== ref.size || createHash('sha256').update(obj.body).digest('hex') !== ref.sha256) {
    throw new MatchcastError(
      'MC_ERR_ARTIFACT_INTEGRITY',
      `${ref.bucket}/${ref.key} does not match the size and SHA-256 recorded when it was published`,
    );
  }
  return obj;
}
