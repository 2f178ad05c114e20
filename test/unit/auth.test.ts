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
  // Flat strings, as header parsing produces: `===` compares those fast, so only a long key shows
  // its length short-cut clearly (1024 characters: ratio ~16 for `===`, ~1 for keysMatch).
  const flat = (x: string) => Buffer.from(x, 'utf8').toString('utf8');
  const key = flat('k'.repeat(1024));
  const short = flat('k');
  const sameLength = flat(`${'k'.repeat(1023)}x`);
  let sink = 0;
  const time = (candidate: string) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 2_000; i++) sink += keysMatch(candidate, key) ? 1 : 2;
    return Number(process.hrtime.bigint() - t0);
  };
  time(short);
  time(sameLength);
  // The fastest of interleaved rounds: another process on the machine only ever adds time, and one
  // preempted sample must not decide.
  let shortNs = Number.POSITIVE_INFINITY;
  let sameLengthNs = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 9; round++) {
    shortNs = Math.min(shortNs, time(short));
    sameLengthNs = Math.min(sameLengthNs, time(sameLength));
  }
  assert.ok(sink > 0);
  const ratio = Math.max(shortNs, sameLengthNs) / Math.min(shortNs, sameLengthNs);
  // One pass over the expected key, no early exit: independent of where or whether the keys differ.
  assert.ok(ratio < 2, `timing ratio ${ratio.toFixed(2)}`);
});
