import { hash } from 'node:crypto';
import type { Database, Queryable } from '../db/index.js';
import type { Logger } from '../logger.js';
import { type AliasEvent, appendAliasEvent, type ModelVersion } from '../registry/index.js';
import { appendRunEvent, type RunEvent, type RunRecord } from '../runs/index.js';
import type { ObjectStore } from '../storage/index.js';
import { readJson } from './artifacts.js';

interface LegacyImportReport {
  models: number;
  versions: number;
  alias_events: number;
  runs: number;
  publications: number;
}

const BUCKET = 'models' as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The events of a history folder, plus those its document committed whose object was never written. */
async function eventsOf<E extends { seq: number }>(
  store: ObjectStore,
  keys: string[],
  committed: unknown[],
): Promise<E[]> {
  const events = new Map<number, E>();
  const valid = (e: unknown): e is E => isObject(e) && Number.isInteger(e.seq);
  for (const key of keys) {
    const e = await readJson<E>(store, BUCKET, key);
    if (valid(e)) events.set(e.seq, e);
  }
  for (const e of committed) if (valid(e) && !events.has(e.seq)) events.set(e.seq, e);
  return [...events.values()].sort((a, b) => a.seq - b.seq);
}

async function importRegistry(store: ObjectStore, tx: Queryable, report: LegacyImportReport): Promise<void> {
  const keys = (await store.list(BUCKET, 'registry/')).map((o) => o.key);
  const models = new Set(keys.map((k) => /^registry\/([^/]+)\//.exec(k)?.[1]).filter((m) => m !== undefined));
  for (const model of models) {
    let lastVersion = 0;
    let lastSeq = 0;
    await tx.query('INSERT INTO registered_models (name) VALUES ($1)', [model]);
    report.models++;
    const jsonUnder = (folder: string) =>
      keys.filter((k) => k.startsWith(`registry/${model}/${folder}/`) && k.endsWith('.json'));
    const versionKeys = jsonUnder('versions').sort(
      (a, b) => Number(/(\d+)\.json$/.exec(a)?.[1]) - Number(/(\d+)\.json$/.exec(b)?.[1]),
    );
    for (const key of versionKeys) {
      const v = await readJson<ModelVersion>(store, BUCKET, key);
      if (!isObject(v) || !/^[1-9]\d*$/.test(String(v.version)) || typeof v.run_id !== 'string') continue;
      const artifactKey = String(v.artifact_uri ?? '').replace(/^models\//, '');
      const file = artifactKey ? await store.get(BUCKET, artifactKey) : null;
      await tx.query(
        `INSERT INTO model_versions (model_name, version, run_id, created_at, metrics, params, feature_names,
           artifact_uri, artifact_sha256, artifact_size, training_cutoff, feature_fingerprint, features_artifact)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          model,
          Number(v.version),
          v.run_id,
          v.created_at,
          JSON.stringify(v.metrics ?? {}),
          JSON.stringify(v.params ?? {}),
          JSON.stringify(v.feature_names ?? []),
          v.artifact_uri,
          file ? hash('sha256', file.body) : null,
          file ? file.body.length : null,
          v.training_cutoff,
          v.feature_fingerprint ?? null,
          v.features_artifact ? JSON.stringify(v.features_artifact) : null,
        ],
      );
      lastVersion = Math.max(lastVersion, Number(v.version));
      report.versions++;
    }
    const doc = await readJson<{ aliases?: Record<string, string>; last_events?: AliasEvent[] }>(
      store,
      BUCKET,
      `registry/${model}/aliases.json`,
    );
    const events = await eventsOf<AliasEvent>(
      store,
      keys.filter((k) => k.startsWith(`registry/${model}/history/`)),
      isObject(doc) && Array.isArray(doc.last_events) ? doc.last_events : [],
    );
    for (const e of events) {
      await appendAliasEvent(tx, model, e);
      lastSeq = Math.max(lastSeq, e.seq);
      report.alias_events++;
    }
    const aliases = isObject(doc) && isObject(doc.aliases) ? doc.aliases : {};
    for (const [alias, version] of Object.entries(aliases)) {
      if (!['champion', 'challenger', 'candidate'].includes(alias) || !/^[1-9]\d*$/.test(String(version)))
        continue;
      await tx.query(
        `INSERT INTO model_aliases (model_name, alias, version)
           SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM model_versions WHERE model_name = $1 AND version = $3)`,
        [model, alias, Number(version)],
      );
    }
    for (const key of jsonUnder('runs')) {
      const r = await readJson<{ run_id?: string }>(store, BUCKET, key);
      if (isObject(r) && typeof r.run_id === 'string') {
        await tx.query(
          'INSERT INTO model_runs (model_name, run_id, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [model, r.run_id, JSON.stringify(r)],
        );
      }
    }
    for (const key of jsonUnder('comparisons')) {
      const c = await readJson<{ version?: string }>(store, BUCKET, key);
      if (isObject(c) && /^[1-9]\d*$/.test(String(c.version))) {
        await tx.query(
          'INSERT INTO model_comparisons (model_name, version, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [model, Number(c.version), JSON.stringify(c)],
        );
      }
    }
    await tx.query('UPDATE registered_models SET last_version = $2, last_alias_seq = $3 WHERE name = $1', [
      model,
      lastVersion,
      lastSeq,
    ]);
  }
}

async function importRuns(store: ObjectStore, tx: Queryable, report: LegacyImportReport): Promise<void> {
  const keys = (await store.list(BUCKET, 'runs/')).map((o) => o.key);
  const known = new Set<string>();
  for (const key of keys) {
    if (!/^runs\/[^/]+\/run\.json$/.test(key)) continue;
    const r = await readJson<RunRecord>(store, BUCKET, key);
    if (!isObject(r) || typeof r.run_id !== 'string' || !isObject(r.artifacts)) continue;
    await tx.query(
      `INSERT INTO pipeline_runs (run_id, kind, status, parent_run_id, created_at, record)
         VALUES ($1, $2, $3, $4, $5, $6)`,
      [r.run_id, r.kind, r.status, r.parent_run_id, r.created_at, JSON.stringify(r)],
    );
    known.add(r.run_id);
    report.runs++;
  }
  const pointer = await readJson<{
    run_id?: string;
    seq?: number;
    published_at?: string;
    last_event?: RunEvent;
  }>(store, BUCKET, 'runs/published.json');
  const history = keys.filter((k) => k.startsWith('runs/history/'));
  for (const e of await eventsOf<RunEvent>(store, history, isObject(pointer) ? [pointer.last_event] : [])) {
    await appendRunEvent(tx, e);
    report.publications++;
  }
  if (isObject(pointer) && typeof pointer.run_id === 'string' && known.has(pointer.run_id)) {
    await tx.query(
      'INSERT INTO published_run (singleton, run_id, seq, published_at) VALUES (true, $1, $2, $3)',
      [pointer.run_id, Number(pointer.seq ?? 1), String(pointer.published_at ?? new Date().toISOString())],
    );
  }
}

/**
 * Imports the registry, run records and pointer of the object-store layout into the database, once: only
 * into empty tables, in one transaction (a crash leaves nothing imported; the next start imports again).
 */
export async function importLegacyMetadata(
  backends: { db: Database; store: ObjectStore },
  log?: Logger,
): Promise<LegacyImportReport | null> {
  const { db, store } = backends;
  const [rows] = await db.query<{ n: number }>(
    'SELECT (SELECT count(*) FROM registered_models) + (SELECT count(*) FROM pipeline_runs) AS n',
  );
  if (Number(rows?.n ?? 0) > 0) return null;
  const [registry, runs] = await Promise.all([store.list(BUCKET, 'registry/'), store.list(BUCKET, 'runs/')]);
  if (registry.length === 0 && runs.length === 0) return null;
  const report: LegacyImportReport = { models: 0, versions: 0, alias_events: 0, runs: 0, publications: 0 };
  await db.transaction(async (tx) => {
    await importRegistry(store, tx, report);
    await importRuns(store, tx, report);
  });
  log?.info(report, 'metadata imported from the object-store layout into the database');
  return report;
}
