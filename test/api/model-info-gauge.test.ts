// `model_info{model_name,version,stage}` (spec §4.2: 1 when a model is loaded) claims no live model
// for a stage whose alias no longer resolves: after `matchcast registry alias rm challenger` the
// challenger sample is removed, by the API's sampler and for late worker results alike.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AppContext } from '../../src/api/context.js';
import { startModelInfoSampler } from '../../src/api/model-info-sampler.js';
import { recordWorkerModel } from '../../src/api/routes/live.js';
import { registryCommand } from '../../src/cli/registry.js';
import { registry as metrics } from '../../src/metrics.js';
import type { WorkerInfo } from '../../src/queue/task-queue.js';
import { createFixture, type Fixture } from '../worker/fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let fx: Fixture | undefined;
let stop: (() => void) | undefined;
after(async () => {
  stop?.();
  await fx?.cleanup();
});

/** The model_info samples, as `stage → "version value"`. */
async function samples(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const m of (await metrics.metrics()).matchAll(
    /^model_info\{model_name="[^"]+",version="([^"]+)",stage="([^"]+)"\} (\S+)$/gm,
  )) {
    out[m[2]] ??= [];
    out[m[2]].push(`${m[1]} ${m[3]}`);
  }
  return out;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}: ${JSON.stringify(await samples())}`);
}

test('alias rm challenger removes its model_info sample; a late worker result does not bring it back', async () => {
  fx = await createFixture();
  const champion = await fx.publish('champion');
  const challenger = await fx.publish('challenger', 0.1);
  // One worker whose latest results show both models loaded.
  let models: WorkerInfo['models'] = {
    champion: { version: champion.version, run_id: champion.run_id },
    challenger: { version: challenger.version, run_id: challenger.run_id },
  };
  const queue = {
    workers: async (): Promise<WorkerInfo[]> => [
      { worker: 'w1', queues: ['ml'], ping: { ok: true, latency_ms: null }, models },
    ],
  };
  const ctx = { registry: fx.registry, queue } as unknown as AppContext;
  stop = startModelInfoSampler(ctx, { everyMs: 30 });
  await until('both samples', async () => {
    const s = await samples();
    return s.champion?.includes(`${champion.version} 1`) && s.challenger?.includes(`${challenger.version} 1`);
  });

  // The operator removes the challenger alias with the real CLI command.
  let err = '';
  const code = await registryCommand(['alias', 'rm', 'challenger', '--actor', 'test'], {
    config: fx.config,
    store: fx.store,
    out: () => undefined,
    err: (t) => {
      err += t;
    },
  });
  assert.equal(code, 0, err);
  assert.equal((await fx.registry.aliases()).challenger, undefined);
  // The worker still holds the old challenger (workers keep a model whose alias went), yet the
  // gauge must not claim a live challenger any more.
  await until('challenger sample removed', async () => (await samples()).challenger === undefined);
  assert.deepEqual((await samples()).champion, [`${champion.version} 1`], 'the champion is untouched');

  // A result of a challenger task that was in flight when the alias went does not resurrect it.
  recordWorkerModel({
    model_name: fx.registry.modelName,
    version: challenger.version,
    stage: 'challenger',
    run_id: challenger.run_id,
    loaded_at: Date.now() / 1000,
  });
  assert.equal((await samples()).challenger, undefined);
  await sleep(100); // a few sampler periods
  assert.equal((await samples()).challenger, undefined);

  // Set again, the stage is sampled again (0 until a worker reports it loaded).
  models = { champion: models.champion };
  await fx.registry.setAlias('challenger', challenger.version, 'test');
  await until('challenger sampled again', async () =>
    Boolean((await samples()).challenger?.includes(`${challenger.version} 0`)),
  );
});

test('the first worker answer turns the sampled 0 into 1 at once, not at the next sample', async () => {
  stop?.();
  await fx?.cleanup();
  fx = await createFixture();
  const champion = await fx.publish('champion');
  // No worker has loaded anything yet: the sampler records the champion at 0.
  const queue = { workers: async (): Promise<WorkerInfo[]> => [] };
  const ctx = { registry: fx.registry, queue } as unknown as AppContext;
  stop = startModelInfoSampler(ctx, { everyMs: 60_000 });
  await until('the champion sampled at 0', async () =>
    Boolean((await samples()).champion?.includes(`${champion.version} 0`)),
  );
  // The first live answer carries the model the worker loaded for it.
  recordWorkerModel({
    model_name: fx.registry.modelName,
    version: champion.version,
    stage: 'champion',
    run_id: champion.run_id,
    loaded_at: Date.now() / 1000,
  });
  assert.deepEqual((await samples()).champion, [`${champion.version} 1`]);
});
