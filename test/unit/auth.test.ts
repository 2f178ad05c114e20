import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProtectedPath, keysMatch } from '../../src/api/index.js';

test('keysMatch accepts only the exact key, whatever the lengths', () => {
  const key = 'a'.repeat(64);
  assert.equal(keysMatch(key, key), true);
  assert.equal(keysMatch('', key), false);
  assert.equal(keysMatch('a', key), false);
  assert.equal(keysMatch(`${key}a`, key), false);
  assert.equal(keysMatch('b'.repeat(64), key), false);
  assert.equal(keysMatch('é'.repeat(10), key), false);
  assert.equal(keysMatch('x'.repeat(100_000), key), false);
  // The supplied key is cycled over the expected one's length: a repeating prefix must still fail.
  assert.equal(keysMatch('ab', 'abab'), false);
  assert.equal(keysMatch('abab', 'ab'), false);
  assert.equal(keysMatch(`${'a'.repeat(63)}b`, key), false);
  assert.equal(keysMatch(`b${'a'.repeat(63)}`, key), false);
  assert.equal(keysMatch('A'.repeat(64), key), false);
  assert.equal(keysMatch('clé-é', 'clé-é'), true);
});

test('every /predict path is protected by prefix, case-insensitively; exempt routes stay open', () => {
  for (const p of [
    '/predict',
    '/predict/',
    '/predict/1',
    '/predict/predictions/',
    '/PREDICT/1',
    '/predict/async/',
  ]) {
    assert.equal(isProtectedPath(p, false), true, p);
  }
  for (const p of [
    '/',
    '/healthcheck/',
    '/metrics',
    '/livescores/',
    '/monitoring/drift',
    '/docs',
    '/predictx',
  ]) {
    assert.equal(isProtectedPath(p, false), false, p);
  }
  assert.equal(isProtectedPath('/monitoring/drift', true), true);
});

test('keysMatch takes about the same time for a wrong key of any length', () => {
  const key = 'k'.repeat(64);
  const time = (candidate: string) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) keysMatch(candidate, key);
    return Number(process.hrtime.bigint() - t0);
  };
  time('warm-up');
  // The fastest of interleaved rounds: another process on the machine only ever adds time, and one
  // preempted sample must not decide.
  let short = Number.POSITIVE_INFINITY;
  let sameLengthPrefix = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 9; round++) {
    short = Math.min(short, time('k'));
    sameLengthPrefix = Math.min(sameLengthPrefix, time(`${'k'.repeat(63)}x`));
  }
  const ratio = Math.max(short, sameLengthPrefix) / Math.min(short, sameLengthPrefix);
  // One pass over the expected key, no early exit: independent of where or whether the keys differ.
  assert.ok(ratio < 3, `timing ratio ${ratio.toFixed(2)}`);
});
