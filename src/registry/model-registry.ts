import type { Config } from '../config.js';
import {
  type Bucket,
  isMatchcastError,
  isStage,
  MatchcastError,
  modelArtifactKey,
  STAGES,
  type Stage,
} from '../domain/index.js';
import type { ObjectInfo, ObjectStore } from '../storage/index.js';
import {
  aliasesKey,
  historyKey,
  historyPrefix,
  REGISTRY_BUCKET,
  registryRunKey,
  versionFromKey,
  versionKey,
  versionsPrefix,
} from './keys.js';
import { isRunId, newRunId } from './run-id.js';
import { isoWithoutZone } from './timestamps.js';
import type { AliasEvent, FeaturesArtifactRef, ModelVersion, Registry, RegistryRun } from './types.js';

/** What the trainer hands over to register a new version. */
export interface NewVersion {
  /** 32-hex run id; default a new random one. */
  run_id?: string;
  metrics: Record<string, number>;
  /** Values are stringified (spec §2.7: object of name to string). */
  params: Record<string, string | number | boolean>;
  feature_names: string[];
  /** Instant before which every training match kicked off (Date or ISO 8601). */
  training_cutoff: Date | string;
  /** The serialised model; written once to `models/<run_id>/model.json`. */
  artifact: Buffer | string;
  /** Fingerprint of the feature definition it was trained on. Default none (legacy). */
  feature_fingerprint?: string;
  /** The features artifact it was trained and validated on. Default none. */
  features_artifact?: FeaturesArtifactRef;
}

/** The aliases document; moved only by compare-and-swap on its etag. */
interface AliasesDocument {
  model_name: string;
  aliases: Partial<Record<Stage, string>>;
  /** Sequence number of the last alias event. */
  seq: number;
  /**
   * The events of the last write, kept here so that the history can be completed when a writer dies
   * between moving the alias and writing the history object (the CAS is the commit point).
   */
  last_events: AliasEvent[];
  updated_at: string;
}

/** Options of {@link createRegistry}. */
export interface RegistryOptions {
  /** Attempts of a compare-and-swap before giving up with MC_ERR_CONFLICT. Default `50`. */
  maxAttempts?: number;
  /** Clock, for tests. Default `() => new Date()`. */
  now?: () => Date;
}

/** An alias change requested in one atomic write. */
interface AliasChange {
  alias: Stage;
  /** Null removes the alias. */
  to: string | null;
}

const EMPTY_DOC = (modelName: string): AliasesDocument => ({
  model_name: modelName,
  aliases: {},
  seq: 0,
  last_events: [],
  updated_at: '',
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The model registry: MLflow's concepts as JSON documents in the `models` bucket.
 *
 * - versions: `registry/<model>/versions/<n>.json`, n = 1, 2, …, written create-exclusive so two
 *   concurrent registrations never share a number;
 * - artifacts: `<run_id>/model.json` (same bucket), written create-exclusive, never overwritten;
 * - aliases: `registry/<model>/aliases.json`, moved by compare-and-swap on the etag;
 * - history: `registry/<model>/history/<seq>.json`, one create-exclusive object per alias event.
 */
export class ModelRegistry implements Registry {
  readonly modelName: string;
  private readonly maxAttempts: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: ObjectStore,
    modelName: string,
    options: RegistryOptions = {},
  ) {
    this.modelName = modelName;
    this.maxAttempts = options.maxAttempts ?? 50;
    this.now = options.now ?? (() => new Date());
  }

  private get bucket(): Bucket {
    return REGISTRY_BUCKET;
  }

  private async readJson<T>(key: string): Promise<{ value: T; info: ObjectInfo } | null> {
    const obj = await this.store.get(this.bucket, key);
    if (!obj) return null;
    try {
      return { value: JSON.parse(obj.body.toString('utf8')) as T, info: obj };
    } catch (err) {
      throw new MatchcastError('MC_ERR_INTERNAL', `registry document ${key} is not valid JSON`, {
        cause: err,
      });
    }
  }

  /** Runs `attempt` until it stops throwing MC_ERR_CONFLICT, with a short jittered backoff. */
  private async withRetry<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await attempt();
      } catch (err) {
        if (!isMatchcastError(err, 'MC_ERR_CONFLICT')) throw err;
        if (i >= this.maxAttempts) {
          throw new MatchcastError(
            'MC_ERR_CONFLICT',
            `registry ${what}: still conflicting after ${i} attempts`,
            {
              cause: err,
            },
          );
        }
        await sleep(Math.random() * Math.min(50, 2 * i));
      }
    }
  }

  // ---- versions -------------------------------------------------------------------------------

  private async versionNumbers(): Promise<number[]> {
    const objects = await this.store.list(this.bucket, versionsPrefix(this.modelName));
    return objects
      .map((o) => versionFromKey(o.key))
      .filter((n): n is number => n !== null)
      .sort((a, b) => a - b);
  }

  /**
   * Writes the artifact and registers a new version with the next free number. Two concurrent
   * callers get different numbers: the version document is created exclusively and the loser retries.
   */
  async registerVersion(input: NewVersion): Promise<ModelVersion> {
    const runId = input.run_id ?? newRunId();
    if (!isRunId(runId)) throw new MatchcastError('MC_ERR_VALIDATION', `run_id must be 32 hex characters`);
    const cutoff =
      input.training_cutoff instanceof Date ? input.training_cutoff : new Date(input.training_cutoff);
    if (Number.isNaN(cutoff.getTime()))
      throw new MatchcastError('MC_ERR_VALIDATION', 'training_cutoff is not a date');
    for (const [name, value] of Object.entries(input.metrics)) {
      if (typeof value !== 'number')
        throw new MatchcastError('MC_ERR_VALIDATION', `metric ${name} is not a number`);
    }
    const artifactKey = modelArtifactKey(runId);
    // The artifact goes first: a version document never points at a missing artifact.
    await this.store.put(this.bucket, artifactKey, input.artifact, {
      contentType: 'application/json',
      ifNoneMatch: '*',
    });
    const params = Object.fromEntries(Object.entries(input.params).map(([k, v]) => [k, String(v)]));
    return this.withRetry('registerVersion', async () => {
      const numbers = await this.versionNumbers();
      const next = (numbers.at(-1) ?? 0) + 1;
      const version: ModelVersion = {
        model_name: this.modelName,
        version: String(next),
        run_id: runId,
        created_at: isoWithoutZone(this.now()),
        metrics: { ...input.metrics },
        params,
        feature_names: [...input.feature_names],
        artifact_uri: `${this.bucket}/${artifactKey}`,
        training_cutoff: cutoff.toISOString(),
      };
      if (input.feature_fingerprint) version.feature_fingerprint = input.feature_fingerprint;
      if (input.features_artifact) version.features_artifact = { ...input.features_artifact };
      await this.store.put(this.bucket, versionKey(this.modelName, next), json(version), {
        contentType: 'application/json',
        ifNoneMatch: '*',
      });
      return version;
    });
  }

  /** Every version, oldest first. */
  async listVersions(): Promise<ModelVersion[]> {
    const numbers = await this.versionNumbers();
    const docs = await Promise.all(numbers.map((n) => this.getVersion(String(n))));
    return docs.filter((v): v is ModelVersion => v !== null);
  }

  async getVersion(version: string): Promise<ModelVersion | null> {
    if (!/^[1-9]\d{0,9}$/.test(version)) return null;
    const doc = await this.readJson<ModelVersion>(versionKey(this.modelName, version));
    return doc?.value ?? null;
  }

  /** The newest version, or null when none is registered. */
  async latestVersion(): Promise<ModelVersion | null> {
    const numbers = await this.versionNumbers();
    const last = numbers.at(-1);
    return last === undefined ? null : this.getVersion(String(last));
  }

  /** Records a run that is not a version (a walk-forward fold), once. */
  async recordRun(run: RegistryRun): Promise<void> {
    if (!isRunId(run.run_id))
      throw new MatchcastError('MC_ERR_VALIDATION', 'run_id must be 32 hex characters');
    await this.store.put(this.bucket, registryRunKey(this.modelName, run.run_id), json(run), {
      contentType: 'application/json',
      ifNoneMatch: '*',
    });
  }

  /** A recorded run, or null. */
  async getRun(runId: string): Promise<RegistryRun | null> {
    if (!isRunId(runId)) return null;
    return (await this.readJson<RegistryRun>(registryRunKey(this.modelName, runId)))?.value ?? null;
  }

  /** The serialised model of a version, read from the object store (never from local disk). */
  async loadArtifact(version: string | ModelVersion): Promise<Buffer> {
    const v = typeof version === 'string' ? await this.getVersion(version) : version;
    if (!v) throw new MatchcastError('MC_ERR_NOT_FOUND', `model version ${String(version)} does not exist`);
    const prefix = `${this.bucket}/`;
    const key = v.artifact_uri.startsWith(prefix)
      ? v.artifact_uri.slice(prefix.length)
      : modelArtifactKey(v.run_id);
    const obj = await this.store.get(this.bucket, key);
    if (!obj) {
      throw new MatchcastError(
        'MC_ERR_MODEL_UNAVAILABLE',
        `artifact of version ${v.version} is missing (${key})`,
      );
    }
    return obj.body;
  }

  // ---- aliases --------------------------------------------------------------------------------

  private async readAliases(): Promise<{ doc: AliasesDocument; etag: string | null }> {
    const found = await this.readJson<AliasesDocument>(aliasesKey(this.modelName));
    if (!found) return { doc: EMPTY_DOC(this.modelName), etag: null };
    return { doc: { ...EMPTY_DOC(this.modelName), ...found.value }, etag: found.info.etag };
  }

  async aliases(): Promise<Partial<Record<Stage, string>>> {
    const { doc } = await this.readAliases();
    const out: Partial<Record<Stage, string>> = {};
    for (const stage of STAGES) {
      const v = doc.aliases[stage];
      if (v !== undefined) out[stage] = v;
    }
    return out;
  }

  async resolve(stage: Stage): Promise<ModelVersion | null> {
    const version = (await this.aliases())[stage];
    return version === undefined ? null : this.getVersion(version);
  }

  /** Writes the history objects of `events`; an object that already exists was written by a peer. */
  private async writeEvents(events: AliasEvent[]): Promise<void> {
    for (const event of events) {
      try {
        await this.store.put(this.bucket, historyKey(this.modelName, event.seq), json(event), {
          contentType: 'application/json',
          ifNoneMatch: '*',
        });
      } catch (err) {
        if (!isMatchcastError(err, 'MC_ERR_CONFLICT')) throw err;
      }
    }
  }

  /**
   * Applies `plan` to the current aliases in one compare-and-swap, retrying on a concurrent write.
   * `plan` sees the current aliases and returns the changes (it may throw to abort). Returns the
   * events recorded (empty when nothing changed).
   */
  private async moveAliases(
    actor: string,
    reason: string | undefined,
    plan: (current: Partial<Record<Stage, string>>) => AliasChange[],
  ): Promise<AliasEvent[]> {
    return this.withRetry('moveAliases', async () => {
      const { doc, etag } = await this.readAliases();
      // Complete the history of the previous write first, in case its writer stopped after the CAS.
      await this.writeEvents(doc.last_events);
      const changes = plan({ ...doc.aliases });
      const aliases = { ...doc.aliases };
      const at = this.now();
      const events: AliasEvent[] = [];
      let seq = doc.seq;
      for (const change of changes) {
        const from = aliases[change.alias] ?? null;
        if (from === change.to) continue;
        if (change.to === null) delete aliases[change.alias];
        else aliases[change.alias] = change.to;
        seq += 1;
        const event: AliasEvent = {
          seq,
          at: at.toISOString(),
          actor,
          alias: change.alias,
          from_version: from,
          to_version: change.to,
        };
        if (reason) event.reason = reason;
        events.push(event);
      }
      if (events.length === 0) return [];
      const next: AliasesDocument = {
        model_name: this.modelName,
        aliases,
        seq,
        last_events: events,
        updated_at: isoWithoutZone(at),
      };
      await this.store.put(
        this.bucket,
        aliasesKey(this.modelName),
        json(next),
        etag === null
          ? { contentType: 'application/json', ifNoneMatch: '*' }
          : { contentType: 'application/json', ifMatch: etag },
      );
      await this.writeEvents(events);
      return events;
    });
  }

  private assertStage(stage: string): asserts stage is Stage {
    if (!isStage(stage)) {
      throw new MatchcastError(
        'MC_ERR_VALIDATION',
        `unknown alias "${stage}" (expected ${STAGES.join(', ')})`,
      );
    }
  }

  /**
   * Points `stage` at `version` (atomic; safe under concurrent writers) and records the move.
   * Returns the event, or null when the alias already pointed there.
   */
  async setAlias(stage: Stage, version: string, actor: string, reason?: string): Promise<AliasEvent | null> {
    this.assertStage(stage);
    const v = await this.getVersion(version);
    if (!v) throw new MatchcastError('MC_ERR_NOT_FOUND', `model version ${version} does not exist`);
    const events = await this.moveAliases(actor, reason, () => [{ alias: stage, to: v.version }]);
    return events[0] ?? null;
  }

  /** Removes `stage`; returns the event, or null when the alias was not assigned. */
  async deleteAlias(stage: Stage, actor: string, reason?: string): Promise<AliasEvent | null> {
    this.assertStage(stage);
    const events = await this.moveAliases(actor, reason, () => [{ alias: stage, to: null }]);
    return events[0] ?? null;
  }

  /**
   * The operator's sign-off (spec §3.1): the champion moves to the candidate's version and the
   * candidate alias is removed, in one atomic write. The previous champion is in the history
   * (`from_version`), so `setAlias('champion', previous)` is the rollback.
   * Throws MC_ERR_NOT_FOUND when there is no candidate.
   */
  async promoteCandidate(actor: string, reason?: string): Promise<{ from: string | null; to: string }> {
    const result: { from: string | null; to: string } = { from: null, to: '' };
    await this.moveAliases(actor, reason ?? 'operator sign-off: candidate → champion', (current) => {
      const candidate = current.candidate;
      if (candidate === undefined)
        throw new MatchcastError('MC_ERR_NOT_FOUND', 'there is no candidate to promote');
      result.from = current.champion ?? null;
      result.to = candidate;
      return [
        { alias: 'champion', to: candidate },
        { alias: 'candidate', to: null },
      ];
    });
    return result;
  }

  /** Every alias event, oldest first. */
  async history(): Promise<AliasEvent[]> {
    const objects = await this.store.list(this.bucket, historyPrefix(this.modelName));
    const docs = await Promise.all(objects.map((o) => this.readJson<AliasEvent>(o.key)));
    const events = docs.filter((d) => d !== null).map((d) => d.value);
    // Events committed by a CAS whose writer has not (yet) written the history object.
    const { doc } = await this.readAliases();
    const seen = new Set(events.map((e) => e.seq));
    for (const e of doc.last_events) if (!seen.has(e.seq)) events.push(e);
    return events.sort((a, b) => a.seq - b.seq);
  }
}

/**
 * Creates the registry of `config.modelName` on `store`.
 * @param options retry bound and clock (defaults: 50 attempts, the system clock)
 */
export function createRegistry(
  store: ObjectStore,
  config: Pick<Config, 'modelName'>,
  options?: RegistryOptions,
) {
  return new ModelRegistry(store, config.modelName, options);
}
