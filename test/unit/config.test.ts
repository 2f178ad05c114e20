import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig, SETTING_NAMES } from '../../src/config.js';
import { isMatchcastError } from '../../src/domain/index.js';

test('defaults with an empty environment', () => {
  const c = parseConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.apiKey, undefined);
  assert.deepEqual(c.corsAllowedOrigins, []);
  assert.equal(c.predictionCacheTtl, 3600);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.s3Endpoint, undefined);
  assert.equal(c.modelName, 'matchcast-1x2');
  assert.equal(c.logLevel, 'info');
  assert.equal(c.promotionTolerance, 0.0005);
  assert.equal(c.promotionOpeningMargin, 0);
  assert.equal(c.performanceWindowMatches, 300);
  assert.equal(c.edgeThreshold, 0.05);
  assert.equal(c.predictTimeoutMs, 30_000);
  assert.equal(c.queueName, 'ml');
  assert.equal(c.roiRecheckMs, 60_000);
  assert.equal(c.reportUrlTtl, 3600);
  assert.equal(c.dataDir, path.resolve('var'));
});

test('values are parsed and CACHE_URL falls back to REDIS_URL', () => {
  const c = parseConfig({
    PORT: '9001',
    CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000',
    REDIS_URL: 'redis://127.0.0.1:6379',
    MONITORING_REQUIRE_KEY: 'true',
  });
  assert.equal(c.port, 9001);
  assert.deepEqual(c.corsAllowedOrigins, ['https://a.example', 'http://localhost:3000']);
  assert.equal(c.cacheUrl, 'redis://127.0.0.1:6379');
  assert.equal(c.monitoringRequireKey, true);
  assert.equal(c.publicBaseUrl, 'http://localhost:9001');
});

const invalid: [string, string][] = [
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['PREDICTION_CACHE_TTL', '-1'],
  ['DATABASE_URL', 'mysql://x'],
  ['REDIS_URL', 'not a url'],
  ['LOG_LEVEL', 'loud'],
  ['API_KEY', 'short'],
  ['CORS_ALLOWED_ORIGINS', 'example.com/path'],
  ['PROMOTION_TOLERANCE', 'abc'],
  ['MONITORING_REQUIRE_KEY', 'maybe'],
  ['PREDICT_TIMEOUT_MS', '60000'],
  ['S3_ENDPOINT', 'ftp://store'],
];
for (const [name, value] of invalid) {
  test(`invalid ${name}=${value} stops start-up naming the setting`, () => {
    assert.throws(
      () => parseConfig({ [name]: value }),
      (err: unknown) => isMatchcastError(err, 'MC_ERR_CONFIG') && err.message.includes(name),
    );
  });
}

test('every setting name is documented in the README table', async () => {
  const { readFile } = await import('node:fs/promises');
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  for (const name of SETTING_NAMES) assert.ok(readme.includes(`\`${name}\``), `${name} missing from README`);
});
