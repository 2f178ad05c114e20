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
  // An S3 endpoint on a closed port: the registry (in the object store) is unreachable.
  await assert.rejects(
    spawnWorker(fx, { S3_ENDPOINT: 'http://127.0.0.1:1', S3_ACCESS_KEY_ID: 'x', S3_SECRET_ACCESS_KEY: 'y' }),
    /worker failed to start: The model registry cannot be read/,
  );
});

test('a new worker refuses to start when Redis cannot be reached', async () => {
  await assert.rejects(
    spawnWorker(fx, { REDIS_URL: 'redis://127.0.0.1:1' }),
    /Redis at redis:\/\/127\.0\.0\.1:1\/? cannot be reached/,
  );
});
