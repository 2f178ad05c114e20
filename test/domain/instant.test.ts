import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseInstant, utcInstant } from '../../src/domain/index.js';

const iso = (raw: string) => parseInstant(raw)?.toISOString() ?? null;

test('parseInstant: a date, a date-time (T or space), seconds and milliseconds; no zone is UTC', () => {
  assert.equal(iso('2023-06-30'), '2023-06-30T00:00:00.000Z');
  assert.equal(iso('2023-06-30 18:45'), '2023-06-30T18:45:00.000Z');
  assert.equal(iso('2023-06-30T18:45:07'), '2023-06-30T18:45:07.000Z');
  assert.equal(iso('2023-06-30T18:45:07.5Z'), '2023-06-30T18:45:07.500Z');
  assert.equal(iso('2023-06-30T18:45:07.123456Z'), '2023-06-30T18:45:07.123Z', 'past ms dropped');
  assert.equal(iso('2023-06-30t18:45:07z'), '2023-06-30T18:45:07.000Z');
  assert.equal(iso(' 2023-06-30 '), '2023-06-30T00:00:00.000Z');
  assert.equal(iso('2024-02-29'), '2024-02-29T00:00:00.000Z', 'a leap day');
  assert.equal(iso('2000-02-29'), '2000-02-29T00:00:00.000Z', '2000 is a leap year');
  assert.equal(iso('2023-12-31T23:59:59Z'), '2023-12-31T23:59:59.000Z');
});

test('parseInstant: an offset is applied (±HH:MM or ±HHMM), also across a day or year', () => {
  assert.equal(iso('2023-06-30T18:45:00+02:00'), '2023-06-30T16:45:00.000Z');
  assert.equal(iso('2023-06-30T18:45:00-0330'), '2023-06-30T22:15:00.000Z');
  assert.equal(iso('2023-01-01T00:30+01:00'), '2022-12-31T23:30:00.000Z');
});

test('parseInstant: nothing rolls over; every part out of range refuses the whole value', () => {
  const bad = [
    '2022-02-30', // no 30 February
    '2023-02-29', // not a leap year
    '1900-02-29', // 1900 is not a leap year
    '2023-04-31T12:00',
    '2023-13-01',
    '2023-00-10',
    '2023-01-00',
    '2023-01-01T24:00',
    '2023-01-01T24:00:00Z',
    '2023-01-01T23:60',
    '2023-01-01T23:59:60', // no leap seconds
    '0000-01-01',
    '1899-12-31',
    '2101-01-01',
    '9999-12-31T23:59:59Z',
    '2100-12-31T23:00:00-05:00', // 2101 in UTC
    '2022-02-30T10:00:00+01:00', // the offset form rolled over before
    '2023-01-01T10:00:00+24:00',
    '2023-01-01T10:00:00+01:60',
    '2023-6-30',
    '30/06/2023',
    '2023-06-30T18',
    '2023-06-30T18:45:00.Z',
    '+002023-06-30',
    '2023-06-30T18:45:00+02',
    '2021-08-14-14:00', // a typo, not a bare date at UTC−14
    '2021-08-14Z',
    'yesterday',
    '',
  ];
  for (const raw of bad) assert.equal(parseInstant(raw), null, raw);
});

test('utcInstant: calendar parts without rollover, within the year range', () => {
  assert.equal(utcInstant(2023, 6, 30, 18, 45)?.toISOString(), '2023-06-30T18:45:00.000Z');
  assert.equal(utcInstant(2023, 2, 29), null);
  assert.equal(utcInstant(2023, 1, 1, 24), null);
  assert.equal(utcInstant(2023, 1, 1, 23, 60), null);
  assert.equal(utcInstant(2023, 1, 1.5), null);
  assert.equal(utcInstant(0, 1, 1), null);
  assert.equal(utcInstant(2101, 1, 1), null);
});
