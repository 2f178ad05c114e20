// The JSON progress line of a finished step says how much was done, also when the step's total was
// an estimate that the work outgrew.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { logProgress } from '../../src/pipeline/index.js';

function capture(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { log: pino(sink), lines };
}

test('a step done reports its total, or more when more was ticked', () => {
  const { log, lines } = capture();
  const progress = logProgress(log);
  const exact = progress.step('train', 'fit', 3);
  exact.tick();
  exact.done({ version: '1' });
  const outgrown = progress.step('backtest', 'folds', 2);
  for (let i = 0; i < 5; i++) outgrown.tick();
  outgrown.tick(2);
  outgrown.done();
  assert.deepEqual(
    lines.map((l) => [l.msg, l.total, l.done, l.version]),
    [
      ['train/fit done', 3, 3, '1'],
      ['backtest/folds done', 2, 7, undefined],
    ],
  );
});
