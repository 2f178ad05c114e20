// Test helpers over the published run: read what is served by the well-known `KEYS` names, and
// publish artifacts the way the pipeline does (a run of their own, one guarded move of the pointer).
import { type Bucket, KEYS } from '../../src/domain/index.js';
import {
  type ArtifactName,
  type ArtifactSource,
  RunWriter,
  readArtifact,
  readPublished,
} from '../../src/runs/index.js';
import type { RunBackends } from '../../src/runs/run-writer.js';
import type { ObjectStore, StoredObject } from '../../src/storage/index.js';

/** The served (published, verified) copy of artifact `name`, or null. */
export function servedArtifact(deps: ArtifactSource, name: ArtifactName): Promise<StoredObject | null> {
  return readArtifact(deps, name);
}

function nameOf(bucket: Bucket, key: string): ArtifactName | null {
  return (
    (Object.keys(KEYS) as ArtifactName[]).find((n) => KEYS[n].bucket === bucket && KEYS[n].key === key) ??
    null
  );
}

/**
 * A read-only store in which `KEYS` keys read the served copy of the artifact (through the published
 * run, verified); other keys read the store itself. For tests written against the well-known keys.
 */
export function servedStoreView(deps: ArtifactSource): ObjectStore {
  const { store } = deps;
  const refuse = async (): Promise<never> => {
    throw new Error('servedStoreView is read-only: write through a RunWriter');
  };
  return {
    kind: store.kind,
    put: refuse,
    delete: refuse,
    async get(bucket, key) {
      const name = nameOf(bucket, key);
      return name ? readArtifact(deps, name) : store.get(bucket, key);
    },
    async head(bucket, key) {
      const name = nameOf(bucket, key);
      if (!name) return store.head(bucket, key);
      const ref = (await readPublished(deps.db))?.artifacts[name];
      return ref ? store.head(ref.bucket, ref.key) : null;
    },
    list: (bucket, prefix) => store.list(bucket, prefix),
    presign: (bucket, key, ttl) => store.presign(bucket, key, ttl),
    async close() {},
  };
}

/** Options of {@link publishArtifacts}. */
export interface PublishArtifactsOptions {
  /** Artifacts of the served run NOT carried into the new one (the served set loses them). */
  drop?: ArtifactName[];
  /** Start from nothing instead of inheriting the served run's artifacts. */
  fresh?: boolean;
  /** Fingerprint of the features definition recorded on the run. */
  featuresFingerprint?: string;
  actor?: string;
}

/**
 * Publishes `files` as a new run that inherits every other artifact of the served run (unless
 * `fresh`): what a pipeline run that rewrote only these artifacts does. Returns the new run id.
 */
export async function publishArtifacts(
  deps: RunBackends,
  files: Partial<Record<ArtifactName, Buffer | string>>,
  options: PublishArtifactsOptions = {},
): Promise<string> {
  const run = await RunWriter.begin(deps, {
    kind: 'full',
    actor: options.actor ?? 'test',
    ...(options.fresh ? { parent: null } : {}),
  });
  for (const [name, body] of Object.entries(files) as [ArtifactName, Buffer | string][]) {
    await run.put(name, body);
  }
  for (const name of options.drop ?? []) run.drop(name);
  if (options.featuresFingerprint) run.setFeaturesFingerprint(options.featuresFingerprint);
  await run.publish({ gates: [], actor: options.actor ?? 'test' });
  return run.runId;
}
