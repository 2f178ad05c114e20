import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateOption, intOption, UsageError } from '../../src/cli/usage-error.js';

test('dateOption: a bare date is midnight UTC, a date-time without zone is UTC, an offset is kept', () => {
  assert.equal(dateOption('as-of', undefined), undefined);
  assert.equal(dateOption('as-of', '2023-06-30')?.toISOString(), '2023-06-30T00:00:00.000Z');
  assert.equal(dateOption('as-of', '2023-06-30T18:45')?.toISOString(), '2023-06-30T18:45:00.000Z');
  assert.equal(dateOption('as-of', '2023-06-30T18:45:00+02:00')?.toISOString(), '2023-06-30T16:45:00.000Z');
  assert.equal(dateOption('as-of', '2023-06-30T18:45:00z')?.toISOString(), '2023-06-30T18:45:00.000Z');
  assert.equal(dateOption('as-of', '2024-02-29')?.toISOString(), '2024-02-29T00:00:00.000Z', 'a leap day');
  const rolled = [
    '2023-01-01T24:00',
    '2023-01-01T23:60',
    '2022-02-30T10:00:00+01:00',
    '0000-01-01',
    '2101-01-01',
  ];
  for (const bad of [
    '',
    'yesterday',
    '2023-13-45',
    '2023-06-30T25:00',
    '2023-02-30',
    '2023-04-31T12:00',
    ...rolled,
  ]) {
    assert.throws(
      () => dateOption('from', bad),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, /^--from expects an ISO 8601 date/);
        return true;
      },
      bad,
    );
  }
});

test('intOption from 1: digits ≥ 1 only', () => {
  const positive = (raw: string | undefined) => intOption('seasons', raw, 1, Number.MAX_SAFE_INTEGER);
  assert.equal(positive(undefined), undefined);
  assert.equal(positive('12'), 12);
  for (const bad of ['0', '-1', '1.5', 'x', '', ' 3']) {
    assert.throws(() => positive(bad), { name: 'UsageError', message: /--seasons/ }, bad);
  }
});
