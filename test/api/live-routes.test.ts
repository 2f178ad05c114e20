import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import type { AppContext } from '../../src/api/context.js';
import { createMemoryCache } from '../../src/cache/memory-cache.js';
import { createLogger } from '../../src/logger.js';
import { createInProcessQueue } from '../../src/queue/in-process/queue.js';
import { createServingViews } from '../../src/serving/index.js';
import { API_KEY } from '../worker/app-harness.js';
import { createFixture, type Fixture } from '../worker/fixtures.js';

// GET /predict/:match_id must not shadow the static /predict/* routes of the precomputed path.
let fx: Fixture;
let app: FastifyInstance;
let ctx: AppContext;
before(async () => {
  fx = await createFixture();
  const log = createLogger('silent');
  const views = createServingViews({ db: fx.db, store: fx.store }, fx.config, log);
  await views.start();
  ctx = {
    config: fx.config,
    log,
    db: fx.db,
    store: fx.store,
    queue: createInProcessQueue({ ...fx.config, embeddedWorkerThreads: 1 }),
    cache: createMemoryCache(),
    registry: fx.registry,
    views,
  };
  app = await buildApp(ctx, { logRequests: false });
  // buildApp registers every route module (src/api/routes/index.ts), the precomputed ones included.
  await app.ready();
});
after(async () => {
  await app?.close();
  await ctx?.queue.close();
  await ctx?.views.close();
  await fx?.cleanup();
});

const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': API_KEY } });

test('static /predict/* routes win over /predict/:match_id', async () => {
  // No predictions file in the fixture: the precomputed routes answer 503 (theirs), never 422 (ours).
  for (const url of ['/predict/predictions/', '/predict/cards/']) {
    const res = await get(url);
    assert.equal(res.json().code, 'MC_ERR_PREDICTIONS_UNAVAILABLE', url);
  }
  for (const url of ['/predict/odds/', '/predict/region-roi/']) {
    const res = await get(url);
    assert.equal(res.statusCode, 200, url);
    assert.deepEqual(res.json(), []);
  }
  assert.notEqual((await get('/predict/precomputed/1')).statusCode, 422);
  // model/info is ours and static too: no champion → 400, not a 422 for match_id "model".
  assert.equal((await get('/predict/model/info')).json().code, 'MC_ERR_BAD_STAGE');
  assert.equal((await get('/predict/3')).json().code, 'MC_ERR_BAD_STAGE');
});

test('the OpenAPI description carries the live routes with ApiKeyAuth', async () => {
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  if (res.statusCode !== 200) return; // docs path owned by the lead; nothing to check without it
  const doc = res.json();
  const live = doc.paths['/predict/{match_id}']?.get;
  assert.ok(live, 'GET /predict/{match_id} documented');
  assert.deepEqual(live.security, [{ ApiKeyAuth: [] }]);
  assert.ok(doc.paths['/predict/async/']?.post);
  assert.ok(doc.paths['/monitoring/task_status/{task_id}']?.get);
  assert.equal(doc.paths['/monitoring/celery/workers']?.get?.security, undefined);
});
