// Input gate: `pipeline run` against an empty or wrong database is refused by a named gate
// (`rows`, exit 3, MC_ERR_GATE_FAILED) before anything is trained: the run is marked failed, nothing
// is registered or published, and the served set is untouched. `--force` cannot train on nothing:
// the train stage then fails clearly (exit 1, MC_ERR_VALIDATION).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDatabase } from '../../src/db/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import { listRuns, publishedSeq, type RunRecord, readPublished } from '../../src/runs/index.js';
import { openTestEnv, runPipelineCli, smallLeague, type TestEnv } from './fixtures.js';

let empty: TestEnv;
let league: TestEnv;
before(async () => {
  [empty, league] = await Promise.all([
    openTestEnv([]),
    openTestEnv(smallLeague({ teams: 4, seasons: 2, seed: 5 })),
  ]);
});
after(async () => {
  await Promise.all([empty?.close(), league?.close()]);
});

async function lastRun(env: TestEnv): Promise<RunRecord> {
  const runs = await listRuns(env.deps.db);
  assert.ok(runs.length > 0, 'a run record was written');
  return runs.at(-1)!;
}

function assertRefused(run: RunRecord, cause: RegExp): void {
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'MC_ERR_GATE_FAILED');
  assert.deepEqual(
    run.gates.map((g) => [g.name, g.passed]),
    [['rows', false]],
  );
  assert.match(run.gates[0]!.message, cause);
  assert.ok(run.stages.features, 'the features stage ran');
  assert.equal(run.stages.train, undefined, 'nothing was trained');
}

test('empty database, no champion: exit 3 from the rows gate, run failed, nothing trained or published', async () => {
  const r = await runPipelineCli(empty, 'run', '--as-of', '2023-09-15');
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /gate\(s\) failed: rows: no rows to train on: the database has no match/);
  assert.match(r.err, /empty or wrong database/);
  assert.match(r.err, /no champion to fall back on/);
  assert.match(r.err, /\[MC_ERR_GATE_FAILED\]/);
  const run = await lastRun(empty);
  assertRefused(run, /database has no match/);
  assert.equal(run.gates[0]!.figures.features_rows, 0);
  assert.equal(run.gates[0]!.figures.champion, null);
  assert.equal(await readPublished(empty.deps.db), null, 'nothing published');
  assert.deepEqual(await empty.deps.registry.listVersions(), [], 'no version registered');
});

test('--force with nothing to train on still cannot train: exit 1 (MC_ERR_VALIDATION), run failed', async () => {
  const r = await runPipelineCli(empty, 'run', '--as-of', '2023-09-15', '--force');
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /pipeline run: no finished match before as-of 2023-09-15T00:00:00\.000Z to train on/);
  assert.match(r.err, /\[MC_ERR_VALIDATION\]/);
  const run = await lastRun(empty);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'MC_ERR_VALIDATION');
  assert.equal(await readPublished(empty.deps.db), null);
});

test('matches but none finished before as-of, no champion: exit 3 naming the cause', async () => {
  const r = await runPipelineCli(league, 'run', '--as-of', '2020-01-01');
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /rows: no rows to train on: none of the 48 matches finished before as-of 2020-01-01/);
  assertRefused(await lastRun(league), /none of the 48 matches finished/);
  assert.deepEqual(await league.deps.registry.listVersions(), []);
});

test('a wrong (empty) database under a published run: exit 3, the served run and pointer untouched', async () => {
  const boot = await bootstrapFirstRun(league.deps, new Date('2023-09-15T00:00:00Z'), {
    analytics: {},
    refitDays: 120,
  });
  const served = boot.run!.run_id;
  const pointer = await publishedSeq(league.deps.db);
  assert.ok(pointer, 'a run is published');
  const versions = (await league.deps.registry.listVersions()).length;
  const champion = await league.deps.registry.resolve('champion');
  assert.ok(champion);

  const emptyDb = await openDatabase(league.config, { memory: true });
  try {
    // The run's record goes to the database it was pointed at; the registry is the served one's.
    const wrong = { ...league, deps: { ...league.deps, db: emptyDb } };
    const r = await runPipelineCli(wrong, 'run', '--as-of', '2023-09-15');
    assert.equal(r.code, 3, r.err);
    assert.match(r.err, /rows: no rows to train on: the database has no match/);
    assert.match(r.err, new RegExp(`champion \\(version ${champion.version}\\) keeps serving`));
    assertRefused(await lastRun(wrong), /database has no match/);
    assert.equal(await readPublished(emptyDb), null, 'nothing published there either');
  } finally {
    await emptyDb.close();
  }
  assert.equal((await readPublished(league.deps.db))?.run_id, served, 'the same run is served');
  assert.equal(await publishedSeq(league.deps.db), pointer, 'the pointer did not move');
  assert.equal((await league.deps.registry.listVersions()).length, versions, 'no version registered');
});
