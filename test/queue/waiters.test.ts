import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MatchcastError } from '../../src/domain/index.js';
import { decodeTaskFailure, taskFailureError, toTaskFailure } from '../../src/queue/task-errors.js';
import { TaskWaiters } from '../../src/queue/waiters.js';

test('failures round-trip through a string and map to typed errors', () => {
  const f = toTaskFailure(new MatchcastError('MC_ERR_MATCH_NOT_FOUND', 'Match 3 missing'));
  assert.deepEqual(decodeTaskFailure(JSON.stringify(f)), {
    code: 'MC_ERR_MATCH_NOT_FOUND',
    error: 'Match 3 missing',
  });
  assert.equal(taskFailureError(f).code, 'MC_ERR_MATCH_NOT_FOUND');
  assert.equal(taskFailureError(toTaskFailure(new Error('boom'))).code, 'MC_ERR_TASK_FAILED');
  assert.equal(
    taskFailureError(decodeTaskFailure('job stalled more than allowable limit')).code,
    'MC_ERR_TASK_FAILED',
  );
  assert.equal(taskFailureError({ code: 'MC_ERR_CONFIG', error: 'x' }).code, 'MC_ERR_TASK_FAILED');
  // A worker asked by an API that could not read the registry answers as that API would have.
  for (const code of ['MC_ERR_BAD_STAGE', 'MC_ERR_GOALS_MODEL_UNAVAILABLE'] as const) {
    const e = taskFailureError(toTaskFailure(new MatchcastError(code, 'x')));
    assert.equal(e.code, code);
  }
  // A model the worker cannot load is a failed task (spec §7), not "unavailable".
  assert.equal(
    taskFailureError(toTaskFailure(new MatchcastError('MC_ERR_MODEL_UNAVAILABLE', 'x'))).code,
    'MC_ERR_TASK_FAILED',
  );
});

test('an outcome that arrives before wait is kept for a tracked task', async () => {
  const w = new TaskWaiters();
  w.track('a');
  w.settle('a', { ok: true, value: 42 });
  assert.equal(await w.wait('a', 100), 42);
  w.settle('untracked', { ok: true, value: 1 });
  await assert.rejects(w.wait('untracked', 20), { code: 'MC_ERR_TASK_TIMEOUT' });
  w.close();
});

test('timeouts and settles leave no waiter behind', async () => {
  const w = new TaskWaiters();
  const waits = Array.from({ length: 50 }, (_, i) => w.wait(`t${i}`, i % 2 ? 10 : 1000).catch((e) => e.code));
  assert.equal(w.size, 50);
  for (let i = 0; i < 50; i += 2)
    w.settle(`t${i}`, { ok: false, failure: { code: 'MC_ERR_MATCH_NOT_FOUND', error: 'x' } });
  const results = await Promise.all(waits);
  assert.equal(results.filter((r) => r === 'MC_ERR_TASK_TIMEOUT').length, 25);
  assert.equal(results.filter((r) => r === 'MC_ERR_MATCH_NOT_FOUND').length, 25);
  assert.equal(w.size, 0);
  w.close();
});

test('poll finds an outcome the events missed', async () => {
  const w = new TaskWaiters();
  let calls = 0;
  const v = await w.wait('p', 1000, async () => (++calls >= 2 ? { ok: true, value: 'late' } : undefined), 10);
  assert.equal(v, 'late');
  assert.equal(w.size, 0);
  w.close();
});
