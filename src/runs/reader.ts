import type { Queryable } from '../db/index.js';
import { type Bucket, KEYS } from '../domain/index.js';
import type { ObjectStore, StoredObject } from '../storage/index.js';
import type { ArtifactName } from './keys.js';
import { readPublished } from './records.js';
import { isRunStore } from './run-writer.js';
import type { PublishedRun } from './types.js';
import { readVerified } from './verify.js';

/** Where the served copy of `name` lives, or null when the published run (if any) has none. */
export function servedRef(
  published: Pick<PublishedRun, 'artifacts'> | null,
  name: ArtifactName,
): { bucket: Bucket; key: string } | null {
  const ref = published?.artifacts[name];
  return ref ? { bucket: ref.bucket, key: ref.key } : null;
}

export interface ArtifactSource {
  db: Queryable;
  store: ObjectStore;
}

/** The served copy of `name`, verified, or null; pass `published` when several must come from one run. */
export async function readArtifact(
  backends: ArtifactSource,
  name: ArtifactName,
  published?: Pick<PublishedRun, 'artifacts'> | null,
): Promise<StoredObject | null> {
  const p = published === undefined ? await readPublished(backends.db) : published;
  const ref = p?.artifacts[name];
  return ref ? readVerified(backends.store, ref) : null;
}

/** The copy of `name` `store` should see: the run's own or inherited in `run.store`, else the served one. */
export async function readCurrentArtifact(
  backends: ArtifactSource,
  name: ArtifactName,
): Promise<StoredObject | null> {
  return isRunStore(backends.store)
    ? backends.store.get(KEYS[name].bucket, KEYS[name].key)
    : readArtifact(backends, name);
}
