// RESULT_TTL is exact from the outside (docs/operations.md): a finished task's result
// is readable by `GET /monitoring/task_status/{id}` for RESULT_TTL seconds, then `state: "unknown"`
// (status `pending` kept) — even when no later job finishes, which is when BullMQ would trim it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { UnrecoverableError, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { bullConnection } from '../../src/queue/bullmq/protocol.js';
import { embeddedApp } from '../helpers/app-context.js';
import { dropQueueKeys, uniqueQueue } from '../worker/fixtures.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = !REDIS_URL && 'REDIS_URL not set';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
});

async function status(app: FastifyInstance, id: string): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'GET', url: `/monitoring/task_status/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Bounded by time, not by polls: a loaded machine stretches each poll and the worker's start alike. */
async function untilFinished(app: FastifyInstance, id: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const s = await status(app, id);
    if (s.status === 'SUCCESS' || s.status === 'FAILURE') return s;
    await sleep(10);
  }
  throw new Error(`task ${id} did not finish within 60 s`);
}

/**
 * Submits one task that succeeds and one that fails, reads both while fresh, then again once
 * RESULT_TTL (1 s) has passed with nothing else finishing in between.
 */
async function expiresByAge(app: FastifyInstance, ctx: AppContext, failingMatch: number): Promise<void> {
  const ok = await ctx.queue.submit('predict_match', { match_id: 1, stage: 'champion' }, { awaited: false });
  const done = await untilFinished(app, ok);
  assert.equal(done.status, 'SUCCESS');
  assert.equal(done.state, 'completed');
  const bad = await ctx.queue.submit(
    'predict_match',
    { match_id: failingMatch, stage: 'champion' },
    { awaited: false },
  );
  const failed = await untilFinished(app, bad);
  assert.equal(failed.status, 'FAILURE');
  assert.equal((failed.result as { code: string }).code, 'MC_ERR_MATCH_NOT_FOUND');
  const finishedAt = Date.now();

  // Still readable within the TTL…
  assert.equal((await status(app, bad)).status, 'FAILURE');
  // …and gone once it has passed, though the queue has been idle since.
  await sleep(1300 - (Date.now() - finishedAt));
  for (const id of [ok, bad]) {
    assert.deepEqual(await status(app, id), {
      task_id: id,
      status: 'pending',
      result: null,
      state: 'unknown',
    });
  }
}

test('BullMQ: a result older than RESULT_TTL reads unknown although no later job finished', {
  skip,
}, async () => {
  const queueName = uniqueQueue();
  closers.push(() => dropQueueKeys(REDIS_URL, queueName));
  const { app, ctx } = await embeddedApp({ REDIS_URL: REDIS_URL!, QUEUE_NAME: queueName, RESULT_TTL: '1' });
  closers.push(() => app.close());
  // A stand-in worker on the real queue: match 404 fails with the typed not-found error.
  const worker = new Worker(
    queueName,
    async (job) => {
      if (job.data.match_id === 404)
        throw new UnrecoverableError(JSON.stringify({ code: 'MC_ERR_MATCH_NOT_FOUND', error: 'no match' }));
      return { match_id: job.data.match_id, probabilities: { home_win: 0.5, draw: 0.3, away_win: 0.2 } };
    },
    { connection: bullConnection(REDIS_URL!), skipVersionCheck: true },
  );
  closers.push(() => worker.close());
  for (let i = 0; i < 100 && !(await ctx.queue.ready(100)); i++) await sleep(20);
  await expiresByAge(app, ctx, 404);
  // BullMQ had not trimmed them (nothing finished since): the age check alone answered `unknown`.
  // A usage sample (the memory gauges) removes them, so the gauge does not count expired results.
  assert.equal((await ctx.queue.usage()).results, 0, 'expired results removed by the usage sample');
});

test('in-process: a result older than RESULT_TTL reads unknown through the route', async () => {
  // The real worker threads of `matchcast start`; with no published run, every predict_match fails.
  const { app, ctx } = await embeddedApp({ RESULT_TTL: '1', EMBEDDED_WORKER_THREADS: '1' });
  closers.push(() => app.close());
  for (let i = 0; i < 500 && !(await ctx.queue.workers()).some((w) => w.ping.ok); i++) await sleep(20);
  const bad = await ctx.queue.submit('predict_match', { match_id: 1, stage: 'champion' }, { awaited: false });
  const failed = await untilFinished(app, bad);
  assert.equal(failed.status, 'FAILURE');
  assert.match(String((failed.result as { code: string }).code), /^MC_ERR_/);
  await sleep(1300);
  assert.deepEqual(await status(app, bad), {
    task_id: bad,
    status: 'pending',
    result: null,
    state: 'unknown',
  });
});
