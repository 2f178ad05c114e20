import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProtectedPath, keyMatcher } from '../../src/api/plugins/auth.js';

test('keyMatcher accepts only the exact key, whatever the lengths', () => {
  const keysMatch = (supplied: string, expected: string) => keyMatcher(expected)(supplied);
  const key = 'a'.repeat(64);
  assert.equal(keysMatch(key, key), true);
  assert.equal(keysMatch('', key), false);
  assert.equal(keysMatch('a', key), false);
  assert.equal(keysMatch(`${key}a`, key), false);
  assert.equal(keysMatch('b'.repeat(64), key), false);
  assert.equal(keysMatch('é'.repeat(10), key), false);
  assert.equal(keysMatch('x'.repeat(100_000), key), false);
  // A prefix, a repetition or a one-character change of the key must fail.
  assert.equal(keysMatch('ab', 'abab'), false);
  assert.equal(keysMatch('abab', 'ab'), false);
  assert.equal(keysMatch(`${'a'.repeat(63)}b`, key), false);
  assert.equal(keysMatch(`b${'a'.repeat(63)}`, key), false);
  assert.equal(keysMatch('A'.repeat(64), key), false);
  assert.equal(keysMatch('clé-é', 'clé-é'), true);
});

test('keyMatcher: no configured key matches nothing; a non-string header never matches', () => {
  assert.equal(keyMatcher(undefined)('anything'), false);
  assert.equal(keyMatcher('')(''), false);
  const matches = keyMatcher('secret-key');
  assert.equal(matches('secret-key'), true);
  assert.equal(matches(['secret-key']), false);
  assert.equal(matches(undefined), false);
  assert.equal(matches('secret-kez'), false);
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
