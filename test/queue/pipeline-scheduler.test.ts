import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import { createLogger } from '../../src/logger.js';
import { bullConnection } from '../../src/queue/bullmq/protocol.js';
import { PIPELINE_SCHEDULER_ID } from '../../src/queue/bullmq/scheduler.js';
import { startPipelineScheduler } from '../../src/queue/index.js';

const REDIS_URL = process.env.REDIS_URL;

test('PIPELINE_SCHEDULE as a BullMQ job scheduler: one schedule, one run at a time across workers', {
  skip: !REDIS_URL && 'REDIS_URL not set',
  timeout: 30_000,
}, async () => {
  const queueName = `pipeline-sched-test-${randomUUID()}`;
  const log = createLogger('silent');
  let running = 0;
  let maxRunning = 0;
  const runs: string[] = [];
  // Each run takes longer than the interval: without the global concurrency of 1, the second
  // worker would start the next firing while the first still runs.
  const run = async (job: { id: string }) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((r) => setTimeout(r, 700));
    runs.push(job.id);
    running--;
  };
  const a = await startPipelineScheduler({
    redisUrl: REDIS_URL!,
    queueName,
    repeat: { every: 300 },
    run,
    log,
  });
  const b = await startPipelineScheduler({
    redisUrl: REDIS_URL!,
    queueName,
    repeat: { every: 300 },
    run,
    log,
  });
  const queue = new Queue(queueName, { connection: bullConnection(REDIS_URL!), skipVersionCheck: true });
  try {
    const schedulers = await queue.getJobSchedulers();
    assert.equal(schedulers.length, 1, 'two workers upserting converge on one schedule');
    assert.equal(schedulers[0]!.key, PIPELINE_SCHEDULER_ID);
    const deadline = Date.now() + 15_000;
    while (runs.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(runs.length >= 3, `scheduled runs happened (${runs.length})`);
    assert.equal(maxRunning, 1, 'never two runs at once');
  } finally {
    await Promise.allSettled([a.close(), b.close()]);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
});
