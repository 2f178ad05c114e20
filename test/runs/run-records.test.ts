// Run records: listing order within one second, and runs killed outright (SIGKILL,
// OOM) shown as failed by `matchcast runs` instead of `running` forever — on this host (dead pid) and
// on another one (a CronJob pod: no progress for ABANDONED_AFTER_MS).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runsCommand } from '../../src/cli/runs.js';
import { parseConfig } from '../../src/config.js';
import { listRuns, readRunRecord } from '../../src/runs/index.js';
import { writeRunRecord } from '../../src/runs/records.js';
import { ABANDONED_AFTER_MS } from '../../src/runs/run-writer.js';
import type { RunRecord } from '../../src/runs/types.js';
import { createObjectStore } from '../../src/storage/index.js';

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

test('runs started within one second list in creation order (not by their random id suffix)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-runs-'));
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = createObjectStore(config);
  try {
    await writeRunRecord(
      store,
      record('20300101T000000Z-ffffffff', { created_at: '2030-01-01T00:00:00.100Z' }),
    );
    await writeRunRecord(
      store,
      record('20300101T000000Z-00000000', { created_at: '2030-01-01T00:00:00.900Z' }),
    );
    await writeRunRecord(
      store,
      record('20291231T235959Z-77777777', { created_at: '2029-12-31T23:59:59.000Z' }),
    );
    assert.deepEqual(
      (await listRuns(store)).map((r) => r.run_id),
      ['20291231T235959Z-77777777', '20300101T000000Z-ffffffff', '20300101T000000Z-00000000'],
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('`matchcast runs list` shows a run whose process was killed as failed, with the reason', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-runs-'));
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = createObjectStore(config);
  const now = Date.now();
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
  try {
    const killed = '20300101T000001Z-0000aaaa';
    const alive = '20300101T000002Z-0000bbbb';
    const podGone = '20300101T000003Z-0000cccc';
    const podBusy = '20300101T000004Z-0000dddd';
    await writeRunRecord(
      store,
      record(killed, { status: 'running', pid: await deadPid(), created_at: iso(60_000) }),
    );
    await writeRunRecord(store, record(alive, { status: 'running', created_at: iso(50_000) }));
    await writeRunRecord(
      store,
      record(podGone, {
        status: 'running',
        host: 'pipeline-cronjob-abc12',
        pid: 1,
        created_at: iso(ABANDONED_AFTER_MS + 120_000),
        updated_at: iso(ABANDONED_AFTER_MS + 60_000),
      }),
    );
    await writeRunRecord(
      store,
      record(podBusy, { status: 'running', host: 'pipeline-cronjob-def34', pid: 1, created_at: iso(40_000) }),
    );
    const chunks: string[] = [];
    const code = await runsCommand(['list', '--json'], { out: (t) => chunks.push(t), config, store });
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
      (await readRunRecord(store, killed))?.error?.message ?? '',
      /abandoned: process \d+ on .* is gone/,
    );
    assert.match(
      (await readRunRecord(store, podGone))?.error?.message ?? '',
      /no progress from pipeline-cronjob-abc12/,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
