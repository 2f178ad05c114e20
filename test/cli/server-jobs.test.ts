import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AdminJob } from '../../src/api/index.js';
import { createServerJobs } from '../../src/cli/server-jobs.js';
import { replayClock } from '../../src/domain/index.js';
import type { RuntimeContext } from '../../src/runtime.js';

/** A serving context whose view refresh takes a while and is observable; jobs that fail at once. */
function fakeContext() {
  const state = { refreshes: 0, started: [] as { kind: string; argv: string[] }[] };
  const ctx = {
    views: {
      refresh: async () => {
        await new Promise((r) => setTimeout(r, 150));
        state.refreshes++;
      },
    },
    log: {
      info(fields: Record<string, unknown>, msg?: string) {
        if (msg === 'job started') state.started.push(fields as { kind: string; argv: string[] });
      },
      debug() {},
      warn() {},
      error() {},
    },
  } as unknown as RuntimeContext;
  return { ctx, state };
}

async function settled(jobs: ReturnType<typeof createServerJobs>, job: AdminJob): Promise<AdminJob> {
  for (;;) {
    const j = jobs.get(job.id);
    assert.ok(j);
    if (j.state === 'done' || j.state === 'failed') return j;
    await new Promise((r) => setTimeout(r, 2));
  }
}

test('a handed-off job reads as finished only once the serving views have reloaded', async () => {
  const { ctx, state } = fakeContext();
  const jobs = createServerJobs(ctx);
  // A bad option fails at once (exit 2) without touching the database: only the lane is exercised.
  const job = jobs.submit('ingest', ['--no-such-option']);
  const done = await settled(jobs, job);
  assert.equal(done.exit_code, 2);
  // The CLI that handed the job over returns on this state: what the job published must serve by then.
  assert.equal(state.refreshes, 1, 'the views reloaded before the job read as finished');
  await jobs.close();
});

test('on a replay clock, pipeline and ingest jobs without their own time run as of the clock', async () => {
  const { ctx, state } = fakeContext();
  const clock = replayClock({ start: new Date('2022-09-01T00:00:00Z'), speed: 0 });
  const jobs = createServerJobs(ctx, { clock });
  for (const [kind, argv] of [
    ['pipeline', ['--no-such-option']],
    ['ingest', ['--no-such-option']],
    ['ingest', ['--no-such-option', '--now', '2022-08-01T00:00:00Z']],
  ] as const)
    await settled(jobs, jobs.submit(kind, [...argv]));
  assert.deepEqual(
    state.started.map((s) => s.argv),
    [
      ['--no-such-option', '--as-of', '2022-09-01T00:00:00.000Z'],
      ['--no-such-option', '--now', '2022-09-01T00:00:00.000Z'],
      ['--no-such-option', '--now', '2022-08-01T00:00:00Z'],
    ],
  );
  await jobs.close();
});
