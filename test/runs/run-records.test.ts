// Run records (rows of `pipeline_runs`): listing order within one second; runs killed outright
// (SIGKILL, OOM) shown as failed by `matchcast runs` instead of `running` forever — on this host (dead
// pid) and on another one (a CronJob pod: no progress for ABANDONED_AFTER_MS); the published-run
// pointer's guarantees (a publish racing another: one MC_ERR_CONFLICT), a malformed row reported with a
// code, and artifacts checked against their recorded SHA-256. On PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runsCommand } from '../../src/cli/runs.js';
import { type Config, parseConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import {
  listRuns,
  RunWriter,
  readArtifact,
  readPublished,
  readRunHistory,
  readRunRecord,
  rollbackRun,
} from '../../src/runs/index.js';
import { writeRunRecord } from '../../src/runs/records.js';
import { ABANDONED_AFTER_MS } from '../../src/runs/run-writer.js';
import type { RunRecord } from '../../src/runs/types.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

function record(runId: string, over: Partial<RunRecord>): RunRecord {
  const at = over.created_at ?? '2030-01-01T00:00:00.000Z';
  return {
    run_id: runId,
    kind: 'full',
    status: 'complete',
    parent_run_id: null,
    actor: 'test',
    host: hostname(),
    pid: process.pid,
    created_at: at,
    updated_at: at,
    finished_at: null,
    as_of: null,
    stages: {},
    artifacts: {},
    files: [],
    features_fingerprint: null,
    gates: [],
    forced: false,
    error: null,
    published_at: [],
    ...over,
  };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

for (const backend of BACKENDS) {
  describe(`run records on ${backend.name}`, { skip: backend.skip }, () => {
    const closers: (() => Promise<void>)[] = [];
    after(async () => {
      for (const close of closers.reverse()) await close();
    });
    /** A fresh, empty database (a schema of its own on PostgreSQL) and a folder store. */
    async function fresh(): Promise<{ db: Database; store: ObjectStore; config: Config }> {
      const { db, cleanup } = await backend.open();
      const dir = await mkdtemp(path.join(tmpdir(), 'mc-runs-'));
      const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
      const store = createObjectStore(config);
      closers.push(async () => {
        await store.close();
        await cleanup();
        await rm(dir, { recursive: true, force: true });
      });
      return { db, store, config };
    }

    test('runs started within one second list in creation order (not by their random id suffix)', async () => {
      const { db } = await fresh();
      await writeRunRecord(
        db,
        record('20300101T000000Z-ffffffff', { created_at: '2030-01-01T00:00:00.100Z' }),
      );
      await writeRunRecord(
        db,
        record('20300101T000000Z-00000000', { created_at: '2030-01-01T00:00:00.900Z' }),
      );
      await writeRunRecord(
        db,
        record('20291231T235959Z-77777777', { created_at: '2029-12-31T23:59:59.000Z' }),
      );
      assert.deepEqual(
        (await listRuns(db)).map((r) => r.run_id),
        ['20291231T235959Z-77777777', '20300101T000000Z-ffffffff', '20300101T000000Z-00000000'],
      );
    });

    test('`matchcast runs list` shows a run whose process was killed as failed, with the reason', async () => {
      const { db, store, config } = await fresh();
      const now = Date.now();
      const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
      const killed = '20300101T000001Z-0000aaaa';
      const alive = '20300101T000002Z-0000bbbb';
      const podGone = '20300101T000003Z-0000cccc';
      const podBusy = '20300101T000004Z-0000dddd';
      await writeRunRecord(
        db,
        record(killed, { status: 'running', pid: await deadPid(), created_at: iso(60_000) }),
      );
      await writeRunRecord(db, record(alive, { status: 'running', created_at: iso(50_000) }));
      await writeRunRecord(
        db,
        record(podGone, {
          status: 'running',
          host: 'pipeline-cronjob-abc12',
          pid: 1,
          created_at: iso(ABANDONED_AFTER_MS + 120_000),
          updated_at: iso(ABANDONED_AFTER_MS + 60_000),
        }),
      );
      await writeRunRecord(
        db,
        record(podBusy, {
          status: 'running',
          host: 'pipeline-cronjob-def34',
          pid: 1,
          created_at: iso(40_000),
        }),
      );
      const chunks: string[] = [];
      const code = await runsCommand(['list', '--json'], { out: (t) => chunks.push(t), config, db, store });
      const out = chunks.join('');
      assert.equal(code, 0);
      const runs = (JSON.parse(out) as { runs: RunRecord[] }).runs;
      const status = Object.fromEntries(runs.map((r) => [r.run_id, r.status]));
      assert.deepEqual(status, {
        [killed]: 'failed',
        [alive]: 'running',
        [podGone]: 'failed',
        [podBusy]: 'running',
      });
      assert.match(
        (await readRunRecord(db, killed))?.error?.message ?? '',
        /abandoned: process \d+ on .* is gone/,
      );
      assert.match(
        (await readRunRecord(db, podGone))?.error?.message ?? '',
        /no progress from pipeline-cronjob-abc12/,
      );
    });

    test('a publish racing another: one moves the pointer, the other gets MC_ERR_CONFLICT', async () => {
      const { db, store } = await fresh();
      const deps = { db, store };
      const base = await RunWriter.begin(deps, { actor: 'test' });
      await base.put('predictions', 'base');
      await base.publish({ gates: [] });
      // Two incremental runs built on the same served run: each may publish only over its parent.
      const a = await RunWriter.begin(deps, { kind: 'incremental', actor: 'a' });
      const b = await RunWriter.begin(deps, { kind: 'incremental', actor: 'b' });
      await a.put('predictions', 'a');
      await b.put('predictions', 'b');
      const results = await Promise.allSettled([a.publish({ gates: [] }), b.publish({ gates: [] })]);
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        ['fulfilled', 'rejected'],
        JSON.stringify(results),
      );
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(lost.reason.code, 'MC_ERR_CONFLICT');
      const winner = results[0].status === 'fulfilled' ? a : b;
      const published = await readPublished(db);
      assert.equal(published?.run_id, winner.runId);
      assert.equal(published?.seq, 2);
      assert.equal((await readArtifact(deps, 'predictions'))?.body.toString(), winner === a ? 'a' : 'b');
      const history = await readRunHistory(db);
      assert.deepEqual(
        history.map((e) => [e.seq, e.from_run, e.to_run]),
        [
          [1, null, base.runId],
          [2, base.runId, winner.runId],
        ],
        'one event per move, chained',
      );
    });

    test('a malformed run record row is reported with a code: never served, skipped by listings', async () => {
      const { db, store, config } = await fresh();
      const deps = { db, store };
      const good = await RunWriter.begin(deps, { actor: 'test' });
      await good.put('predictions', 'p');
      await good.publish({ gates: [] });
      const bad = '20300101T000000Z-0badbad0';
      await db.query(
        `INSERT INTO pipeline_runs (run_id, kind, status, parent_run_id, created_at, record)
           VALUES ($1, 'full', 'complete', NULL, '2030-01-01T00:00:00.000Z', $2)`,
        [bad, JSON.stringify({ run_id: bad, status: 'complete', artifacts: 'not a map' })],
      );
      await assert.rejects(readRunRecord(db, bad), { code: 'MC_ERR_INTERNAL', message: /malformed/ });
      assert.deepEqual(
        (await listRuns(db)).map((r) => r.run_id),
        [good.runId],
      );
      const err: string[] = [];
      const show = await runsCommand(['show', bad], {
        out: () => undefined,
        err: (t) => err.push(t),
        config,
        db,
        store,
      });
      assert.notEqual(show, 0);
      assert.match(err.join(''), /MC_ERR_INTERNAL|malformed/);
      await assert.rejects(rollbackRun(deps, bad, { actor: 'test' }), { code: 'MC_ERR_INTERNAL' });
      // The published run's own row broken: readers get the coded error, not a crash or a wrong run.
      await db.query(`UPDATE pipeline_runs SET record = '{"run_id":"other"}' WHERE run_id = $1`, [
        good.runId,
      ]);
      await assert.rejects(readPublished(db), { code: 'MC_ERR_INTERNAL' });
    });

    test('a served artifact changed after publication is refused (MC_ERR_ARTIFACT_INTEGRITY), also by a rollback', async () => {
      const { db, store } = await fresh();
      const deps = { db, store };
      const first = await RunWriter.begin(deps, { actor: 'test' });
      await first.put('predictions', 'first');
      await first.publish({ gates: [] });
      const second = await RunWriter.begin(deps, { actor: 'test' });
      await second.put('predictions', 'second');
      await second.publish({ gates: [] });
      assert.equal((await readArtifact(deps, 'predictions'))?.body.toString(), 'second');
      const ref = second.ref('predictions')!;
      await store.put(ref.bucket, ref.key, 'tampered');
      await assert.rejects(readArtifact(deps, 'predictions'), { code: 'MC_ERR_ARTIFACT_INTEGRITY' });
      const firstRef = first.ref('predictions')!;
      await store.put(firstRef.bucket, firstRef.key, 'firsT');
      await assert.rejects(rollbackRun(deps, first.runId, { actor: 'test' }), {
        code: 'MC_ERR_ARTIFACT_INTEGRITY',
      });
      assert.equal((await readPublished(db))?.run_id, second.runId, 'the pointer did not move');
    });
  });
}
