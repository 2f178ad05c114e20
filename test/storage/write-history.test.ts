import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BLIND,
  CREATED,
  HISTORY_LENGTH,
  historyOf,
  outcomeOf,
  parseHistory,
  UNKNOWN,
} from '../../src/storage/write-history.js';

test('a write records itself, then what it replaced, kept to HISTORY_LENGTH ids', () => {
  assert.deepEqual(historyOf('a', 'created'), ['a', CREATED]);
  assert.deepEqual(historyOf('b', ['a', CREATED]), ['b', 'a', CREATED]);
  assert.deepEqual(historyOf('p', 'blind'), ['p', BLIND]);
  assert.deepEqual(historyOf('c', []), ['c', UNKNOWN], 'over an object written without a history');
  const long = Array.from({ length: HISTORY_LENGTH }, (_, i) => `w${i}`);
  assert.deepEqual(historyOf('new', long), ['new', ...long.slice(0, HISTORY_LENGTH - 1)]);
  assert.deepEqual(parseHistory(historyOf('b', ['a', CREATED]).join(' ')), ['b', 'a', CREATED]);
  assert.deepEqual(parseHistory(undefined), []);
});

test('a lost write is landed when in the history, refused when the history reaches its base without it', () => {
  // Ours (x) replaced base b, then a rival replaced ours.
  assert.equal(outcomeOf(['r', 'x', 'b', CREATED], 'x', 'b'), 'landed');
  // A rival replaced b instead: ours cannot land any more.
  assert.equal(outcomeOf(['r2', 'r', 'b', CREATED], 'x', 'b'), 'refused');
  // A create-exclusive write whose key a rival created.
  assert.equal(outcomeOf(['r', CREATED], 'x', CREATED), 'refused');
  // A compare-and-swap over an object without a history, replaced by a rival's.
  assert.equal(outcomeOf(['r', UNKNOWN], 'x', UNKNOWN), 'refused');
  // A history complete back to the key's creation without ours or its base: recreated since.
  assert.equal(outcomeOf(['r', CREATED], 'x', 'b'), 'refused');
});

test('a plain put or an object without a history may have replaced the write: undecidable', () => {
  assert.equal(outcomeOf(['p', BLIND], 'x', 'b'), 'unknown');
  assert.equal(outcomeOf(['r', 'p', BLIND], 'x', 'b'), 'unknown');
  assert.equal(outcomeOf([], 'x', 'b'), 'unknown');
  assert.equal(outcomeOf(['p', BLIND], 'x', CREATED), 'unknown');
  // A rival's compare-and-swap over a foreign write (no history) that may have replaced ours.
  assert.equal(outcomeOf(['r', UNKNOWN], 'x', 'b'), 'unknown');
  assert.equal(outcomeOf(['r', UNKNOWN], 'x', CREATED), 'unknown');
});

test('a history that is full and reaches neither the write nor its base is undecidable', () => {
  const rivals = Array.from({ length: HISTORY_LENGTH }, (_, i) => `r${i}`);
  assert.equal(outcomeOf(rivals, 'x', 'b'), 'unknown');
  assert.equal(outcomeOf([...rivals.slice(0, HISTORY_LENGTH - 1), 'b'], 'x', 'b'), 'refused');
  assert.equal(outcomeOf([...rivals.slice(0, HISTORY_LENGTH - 1), 'x'], 'x', 'b'), 'landed');
});
