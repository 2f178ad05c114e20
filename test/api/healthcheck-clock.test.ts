import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayClock } from '../../src/domain/index.js';
import { embeddedApp } from '../helpers/app-context.js';

test('/healthcheck/ shows the replay clock during a replay (the replay banner points there), nothing otherwise', async () => {
  const { app, ctx } = await embeddedApp();
  try {
    const plain = (await app.inject({ url: '/healthcheck/' })).json() as Record<string, unknown>;
    assert.equal('clock' in plain, false, 'no clock field on the wall clock');
    ctx.clock = replayClock({ start: new Date('2022-09-01T00:00:00Z'), speed: 0 });
    const res = await app.inject({ url: '/healthcheck/' });
    assert.equal(res.statusCode, 200);
    assert.equal((res.json() as { clock?: string }).clock, '2022-09-01T00:00:00.000Z');
  } finally {
    await app.close();
  }
});
