import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { spawnWorker } from './app-harness.js';
import { createFixture, dropQueueKeys, type Fixture, uniqueQueue } from './fixtures.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = !REDIS_URL && 'REDIS_URL not set';

let fx: Fixture;
before(async () => {
  fx = await createFixture({ REDIS_URL, QUEUE_NAME: uniqueQueue() });
});
after(async () => {
  await dropQueueKeys(REDIS_URL, fx.config.queueName);
  await fx?.cleanup();
});

test('a new worker refuses to start when the registry cannot be read', { skip }, async () => {
  // A database on a closed port: the registry (its rows) is unreachable.
  await assert.rejects(
    spawnWorker(fx, { DATABASE_URL: 'postgres://mc@127.0.0.1:1/none', DB_TIMEOUT_MS: '500' }),
    /worker failed: .*(database|registry)/i,
  );
});

test('a new worker refuses to start when Redis cannot be reached', async () => {
  await assert.rejects(
    spawnWorker(fx, { REDIS_URL: 'redis://127.0.0.1:1' }),
    /Redis at redis:\/\/127\.0\.0\.1:1\/? cannot be reached/,
  );
});
