import assert from 'node:assert/strict';
import { test } from 'node:test';
import { predictionCacheKey } from '../../src/cache/index.js';
import { createMemoryCache } from '../../src/cache/memory-cache.js';
import { createRedisCache } from '../../src/cache/redis-cache.js';

const REDIS_URL = process.env.REDIS_URL;

test('key carries match id, run id, stage and features run', () => {
  assert.equal(
    predictionCacheKey(12, 'abc', { stage: 'champion', featuresRunId: null }),
    'predict:12:abc:champion:legacy',
  );
});

test('memory cache: TTL expiry, LRU bound, copies values', async () => {
  let now = 0;
  const cache = createMemoryCache({ maxEntries: 2, now: () => now });
  await cache.set('a', { x: 1 }, 10);
  await cache.set('b', { x: 2 }, 10);
  assert.deepEqual(await cache.get('a'), { x: 1 }); // a is now most recent
  await cache.set('c', { x: 3 }, 10); // evicts b
  assert.equal(await cache.get('b'), undefined);
  assert.deepEqual(await cache.get('c'), { x: 3 });
  const got = await cache.get<{ x: number }>('a');
  if (got) got.x = 99;
  assert.deepEqual(await cache.get('a'), { x: 1 });
  now = 10_001;
  assert.equal(await cache.get('a'), undefined);
});

test('redis cache: set/get with TTL', { skip: !REDIS_URL && 'REDIS_URL not set' }, async () => {
  const prefix = `t-${process.pid}-${Date.now()}:`;
  const cache = createRedisCache(REDIS_URL!, undefined, { keyPrefix: prefix });
  try {
    // The first call may race the connection: the cache reports a miss rather than wait.
    for (let i = 0; i < 50 && (await cache.get('probe')) === undefined; i++) {
      await cache.set('probe', 1, 5);
      await new Promise((r) => setTimeout(r, 10));
    }
    await cache.set('k', { match_id: 1, p: [0.5, 0.3, 0.2] }, 1);
    assert.deepEqual(await cache.get('k'), { match_id: 1, p: [0.5, 0.3, 0.2] });
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await cache.get('k'), undefined);
  } finally {
    await cache.close();
  }
});

test('redis cache down: get is a miss and set a no-op, both fast', async () => {
  const cache = createRedisCache('redis://127.0.0.1:1');
  try {
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      assert.equal(await cache.get('k'), undefined);
      await cache.set('k', 1, 10);
    }
    assert.ok(performance.now() - started < 200);
  } finally {
    await cache.close();
  }
});
