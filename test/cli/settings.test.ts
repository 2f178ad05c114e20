// Settings: every invalid one is reported at once (one MC_ERR_CONFIG naming each, with what it
// accepts), and PIPELINE_SCHEDULE is bounded where it is read, not when its first firing overflows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { nextRun, parseSchedule } from '../../src/pipeline/index.js';

function configError(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (err) {
    assert.ok(isMatchcastError(err, 'MC_ERR_CONFIG'), String(err));
    return err.message;
  }
  assert.fail(`parseConfig accepted ${JSON.stringify(env)}`);
}

test('every invalid setting is listed in one MC_ERR_CONFIG, each with its accepted values', () => {
  const message = configError({
    PORT: '70000',
    LOG_LEVEL: 'loud',
    WORKER_CONCURRENCY: '-3',
    EDGE_THRESHOLD: 'lots',
    QUEUE_NAME: 'a queue',
    MONITORING_REQUIRE_KEY: 'maybe',
  });
  assert.match(message, /^Invalid settings \(6\):/);
  assert.match(message, /PORT: expected 0\.\.65535, got 70000/);
  assert.match(message, /LOG_LEVEL: expected one of fatal, error/);
  assert.match(message, /WORKER_CONCURRENCY: expected 1\.\.256, got -3/);
  assert.match(message, /EDGE_THRESHOLD: expected a number 0\.\.10, got "lots"/);
  assert.match(message, /QUEUE_NAME: /);
  assert.match(message, /MONITORING_REQUIRE_KEY: expected true or false/);
  // One per line, so a terminal shows them as a list.
  assert.equal(message.split('\n').length, 7);
});

test('a single invalid setting keeps the one-line form', () => {
  assert.equal(
    configError({ PORT: 'eighty' }),
    'Invalid setting PORT: expected an integer 0..65535, got "eighty"',
  );
});

test('PIPELINE_SCHEDULE: intervals of 1 s..366 d and real cron patterns only, refused when read', () => {
  for (const ok of ['every 1s', 'every 15m', 'every 366d', '30 4 * * *', '0 */6 * * 1-5'])
    assert.equal(parseConfig({ PIPELINE_SCHEDULE: ok }).pipelineSchedule, ok);
  for (const bad of ['every 99999999999999999999d', 'every 367d', 'every 0s', '61 4 * * *', 'daily'])
    assert.match(configError({ PIPELINE_SCHEDULE: bad }), /PIPELINE_SCHEDULE/, bad);
  // The largest interval still has a next firing in the future (an overflowed one fired at once).
  const now = new Date('2026-01-01T00:00:00Z');
  const next = nextRun(parseSchedule('every 366d'), now);
  assert.equal(next.getTime() - now.getTime(), 366 * 86_400_000);
  assert.throws(
    () => parseSchedule('every 99999999999999999999d'),
    (e: unknown) => isMatchcastError(e, 'MC_ERR_CONFIG'),
  );
});
