import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { test } from 'node:test';
import { withTimeout } from '../../src/domain/index.js';

function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

test('withTimeout: an answer that arrived during a stall of the event loop wins over the expired bound', async () => {
  const file = await open(import.meta.filename);
  try {
    for (let round = 0; round < 5; round++) {
      // A read on libuv's thread pool finishes in well under 50 ms, while the loop is stalled; the
      // 10 ms bound expires meanwhile. Its completion must be read before the bound rejects.
      const read = file.read(Buffer.alloc(16), 0, 16, 0).then((r) => r.bytesRead);
      const bounded = withTimeout(read, 10, () => new Error('timeout'));
      stall(60);
      assert.equal(await bounded, 16, `round ${round}`);
    }
  } finally {
    await file.close();
  }
});

test('withTimeout: a promise that has not settled is rejected after its bound', async () => {
  const started = Date.now();
  let hold: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    hold = setTimeout(resolve, 2000);
  });
  try {
    await assert.rejects(
      withTimeout(late, 30, () => new Error('timeout')),
      /timeout/,
    );
  } finally {
    clearTimeout(hold);
  }
  const waited = Date.now() - started;
  assert.ok(waited >= 29 && waited < 1000, `rejected after ${waited} ms`);
});
