import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/logger.js';
import type { ModelVersion } from '../../src/registry/index.js';
import { ModelSlots } from '../../src/worker/model-slots.js';

function version(n: number): ModelVersion {
  return { version: String(n), run_id: `run-${n}` } as ModelVersion;
}

test('a hinted promotion is served even when a refresh that read the old alias is in flight', async () => {
  let champion = version(1);
  const pending: Array<() => void> = [];
  let hold = false;
  const registry = {
    modelName: 'm',
    async resolve() {
      const seen = champion; // what the registry says when the read is made
      if (hold) await new Promise<void>((r) => pending.push(r));
      return seen;
    },
    async aliases() {
      return { champion: champion.version };
    },
  };
  const slots = new ModelSlots<string>(
    registry,
    async (v) => `model ${v.run_id}`,
    0,
    createLogger('silent'),
    'MC_ERR_BAD_STAGE',
  );
  assert.equal((await slots.get('champion')).version.run_id, 'run-1');

  hold = true;
  void slots.get('champion'); // starts a background refresh; its read sees run-1 and is held
  assert.equal(pending.length, 1);
  champion = version(2);
  hold = false;
  const hinted = slots.get('champion', 'run-2');
  pending.shift()!();
  const model = await hinted;
  assert.equal(model.version.run_id, 'run-2');
  assert.equal(model.predict, 'model run-2');
});
