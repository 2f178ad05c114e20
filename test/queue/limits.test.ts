// Result TTL and task deadlines on the in-process queue (real worker threads, the real thread protocol):
// results kept by age with `unknown` told apart from `waiting`, the waiting-job cap, expiry of a sync
// task whose caller has gone, and one outcome per task for the metrics listener (sync and async).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { createInProcessQueue } from '../../src/queue/in-process/queue.js';
import type { TaskName } from '../../src/queue/index.js';
import { TaskWaiters } from '../../src/queue/waiters.js';

const entry = new URL('./fixtures/slow-thread.ts', import.meta.url);
const config = { ...parseConfig({}), embeddedWorkerThreads: 1, workerConcurrency: 1 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

test('waiters: every tracked outcome reaches the listener once; an async one is not kept for wait', async () => {
  const w = new TaskWaiters();
  const seen: Array<[TaskName, boolean]> = [];
  const off = w.onOutcome((name, o) => seen.push([name, o.ok]));
  w.track('s', 'predict_match');
  w.track('a', 'predict_match', { awaited: false });
  const waiting = w.wait('s', 1000, async () => ({ ok: true, value: 1 }), 10);
  w.settle('s', { ok: true, value: 1 });
  w.settle('s', { ok: true, value: 1 }); // a reply and a poll may both report it
  w.settle('a', { ok: false, failure: { code: 'MC_ERR_TASK_FAILED', error: 'x' } });
  w.settle('untracked', { ok: true, value: 1 });
  assert.equal(await waiting, 1);
  assert.deepEqual(seen, [
    ['predict_match', true],
    ['predict_match', false],
  ]);
  assert.equal(w.trackedCount, 0, 'the async outcome is not kept');
  off();
  w.close();
});

test('in-process: cap on waiting tasks, expired sync task skipped, results by age, unknown vs waiting', async () => {
  const q = createInProcessQueue(
    { ...config, queueMaxWaiting: 3, resultTtl: 0.4, resultStoreMax: 1000 },
    { entry },
  );
  const outcomes: string[] = [];
  q.onOutcome((_n, o) => outcomes.push(o.ok ? 'ok' : (o as { failure: { code: string } }).failure.code));
  try {
    await until(async () => (await q.workers()).some((w) => w.ping.ok), 20_000);
    // Occupy the one slot, then queue: one sync task with a deadline that passes while it waits.
    const busy = await q.submit('predict_match', { match_id: 1, delay_ms: 600 } as never);
    const expiring = await q.submit('predict_match', { match_id: 2 } as never, {
      expiresAt: Date.now() + 100,
    });
    const async1 = await q.submit('predict_match', { match_id: 3 } as never, { awaited: false });
    assert.equal((await q.status(async1)).state, 'waiting');
    assert.equal((await q.status(async1)).status, 'pending');
    const extra = await q.submit('predict_match', { match_id: 4 } as never, { awaited: false });
    // Three waiting now: the fourth is refused with a Retry-After hint.
    await assert.rejects(q.submit('predict_match', { match_id: 5 } as never), (err: unknown) => {
      assert.ok(isMatchcastError(err, 'MC_ERR_QUEUE_FULL'));
      assert.ok((err.retryAfterSeconds ?? 0) > 0);
      return true;
    });
    assert.equal((await q.usage()).waiting, 3);
    await until(async () => (await q.status(extra)).status === 'SUCCESS', 10_000);
    const expired = await q.status(expiring);
    assert.equal(expired.status, 'FAILURE');
    assert.deepEqual((expired.result as { code: string }).code, 'MC_ERR_TASK_EXPIRED');
    assert.equal((await q.status(busy)).state, 'completed');
    assert.deepEqual(outcomes.sort(), ['MC_ERR_TASK_EXPIRED', 'ok', 'ok', 'ok']);
    // Kept by age: gone after RESULT_TTL (400 ms), then `unknown` — not a `pending` that looks queued.
    await sleep(500);
    const gone = await q.status(busy);
    assert.equal(gone.status, 'pending');
    assert.equal(gone.state, 'unknown');
    assert.equal((await q.status('never-submitted')).state, 'unknown');
  } finally {
    await q.close();
  }
});

test('in-process: expiry is read from the result’s own age, not only from the prune order', async () => {
  // A clock stepped back (NTP) between two finishes leaves a younger-stamped result behind an older
  // one in the store's order; the status still answers `unknown` once its own age passed RESULT_TTL.
  const q = createInProcessQueue({ ...config, resultTtl: 1, resultStoreMax: 1000 }, { entry });
  const realNow = Date.now;
  let offset = 0;
  Date.now = () => realNow() + offset;
  try {
    await until(async () => (await q.workers()).some((w) => w.ping.ok), 20_000);
    offset = 5000; // clock ahead
    const ahead = await q.submit('predict_match', { match_id: 1 } as never, { awaited: false });
    await until(async () => (await q.status(ahead)).status === 'SUCCESS', 10_000);
    offset = 0; // stepped back
    const id = await q.submit('predict_match', { match_id: 2 } as never, { awaited: false });
    await until(async () => (await q.status(id)).status === 'SUCCESS', 10_000);
    offset = 1500; // 1.5 s after `id` finished, before `ahead` (stamped 5 s later) expires
    assert.deepEqual(await q.status(id), { task_id: id, status: 'pending', result: null, state: 'unknown' });
    assert.equal((await q.status(ahead)).status, 'SUCCESS');
  } finally {
    Date.now = realNow;
    await q.close();
  }
});
