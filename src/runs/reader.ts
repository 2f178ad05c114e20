import { type Bucket, KEYS } from '../domain/index.js';
import type { ObjectStore, StoredObject } from '../storage/index.js';
import type { ArtifactName } from './keys.js';
import { readPublished } from './records.js';
import { isRunStore } from './run-writer.js';
import type { PublishedPointer } from './types.js';

/**
 * Where the served copy of `name` lives: the published run's artifact, or — only while no run was
 * ever published (a store from before runs) — the legacy top-level key. Null when the published run
 * has no such artifact.
 */
export function servedRef(
  published: Pick<PublishedPointer, 'artifacts'> | null,
  name: ArtifactName,
): { bucket: Bucket; key: string } | null {
  if (!published) return { bucket: KEYS[name].bucket, key: KEYS[name].key };
  const ref = published.artifacts[name];
  return ref ? { bucket: ref.bucket, key: ref.key } : null;
}

/**
 * The served copy of artifact `name` (through the published-run pointer), or null when there is none.
 * Pass `published` when several artifacts must come from the same run.
 */
export async function readArtifact(
  store: ObjectStore,
  name: ArtifactName,
  published?: Pick<PublishedPointer, 'artifacts'> | null,
): Promise<StoredObject | null> {
  const p = published === undefined ? await readPublished(store) : published;
  const ref = servedRef(p, name);
  return ref ? store.get(ref.bucket, ref.key) : null;
}

/**
 * The copy of `name` that code handed `store` should see: inside a run (`run.store`) the run's own or
 * inherited copy; on the real store the served (published) one.
 */
export async function readCurrentArtifact(
  store: ObjectStore,
  name: ArtifactName,
): Promise<StoredObject | null> {
  return isRunStore(store) ? store.get(KEYS[name].bucket, KEYS[name].key) : readArtifact(store, name);
}

/**
 * A read-only view of `store` in which `KEYS` keys read the served (published) copy — for tools and
 * tests written against the well-known keys. Other keys read the store itself; writes are refused.
 */
export function servedStoreView(store: ObjectStore): ObjectStore {
  const refuse = async (): Promise<never> => {
    throw new Error('servedStoreView is read-only: write through a RunWriter');
  };
  const nameOf = (bucket: Bucket, key: string): ArtifactName | null =>
    (Object.keys(KEYS) as ArtifactName[]).find((n) => KEYS[n].bucket === bucket && KEYS[n].key === key) ??
    null;
  return {
    kind: store.kind,
    put: refuse,
    delete: refuse,
    async get(bucket, key) {
      const name = nameOf(bucket, key);
      return name ? readArtifact(store, name) : store.get(bucket, key);
    },
    async head(bucket, key) {
      const name = nameOf(bucket, key);
      if (!name) return store.head(bucket, key);
      const ref = servedRef(await readPublished(store), name);
      return ref ? store.head(ref.bucket, ref.key) : null;
    },
    list: (bucket, prefix) => store.list(bucket, prefix),
    presign: (bucket, key, ttl) => store.presign(bucket, key, ttl),
    async close() {},
  };
}
