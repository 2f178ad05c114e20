import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { registerDocs } from '../../src/api/plugins/docs.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { uiRoutes } from '../../src/api/routes/ui.js';
import { parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { FIXTURE_BASELINES_CSV } from './helpers/fixtures.js';

const KEY = 'ui-routes-test-key-0123456789';
let tmp: string;
let store: ObjectStore;
let db: Database;
let ctx: AppContext;
const apps: FastifyInstance[] = [];

before(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'mc-ui-'));
  const config = parseConfig({ API_KEY: KEY, DATA_DIR: tmp, EDGE_THRESHOLD: '0.07', LOG_LEVEL: 'silent' });
  store = createObjectStore(config);
  db = await openDatabase(config, { memory: true });
  // Only the members the UI routes use; the rest of the runtime is not needed here.
  ctx = { config, log: createLogger('silent'), db, store } as unknown as AppContext;
  // The bundle is made at build time (`npm run build`), never by the server.
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: path.join(tmp, 'dist-a') });
});

after(async () => {
  for (const app of apps) await app.close();
  await store?.close();
  await db?.close();
  await rm(tmp, { recursive: true, force: true });
});

async function appWith(distDir: string, ignoreTrailingSlash = false): Promise<FastifyInstance> {
  // buildApp uses ignoreTrailingSlash; both router settings must serve /ui/ and redirect /ui.
  const app = Fastify({ routerOptions: { ignoreTrailingSlash } });
  apps.push(app);
  // The app's one error catalogue turns thrown MatchcastErrors into {detail, code} bodies.
  registerErrorHandling(app);
  await registerDocs(app, 'test');
  await uiRoutes(app, ctx, { distDir });
  await app.ready();
  return app;
}

test('serves the bundled index.html and hashed assets', async () => {
  const dist = path.join(tmp, 'dist-a');
  const app = await appWith(dist);
  const redirect = await app.inject('/ui');
  assert.equal(redirect.statusCode, 301);
  assert.equal(redirect.headers.location, '/ui/');

  const index = await app.inject('/ui/');
  assert.equal(index.statusCode, 200, index.body);
  assert.match(String(index.headers['content-type']), /text\/html/);
  assert.equal(index.headers['cache-control'], 'no-cache');
  // Strict CSP: no inline script, no inline style, nothing from another origin.
  assert.doesNotMatch(index.body, /<script(?![^>]*\bsrc=)[^>]*>/);
  assert.doesNotMatch(index.body, /<style|\sstyle=/);
  assert.doesNotMatch(index.body, /https?:\/\//);
  const assets = [...index.body.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.equal(assets.length, 2, 'one script and one stylesheet');

  let gzipTotal = gzipSync(index.rawPayload).length;
  for (const a of assets) {
    assert.match(a, /-[A-Z0-9]{8}\.(js|css)$/, 'content-hashed file name');
    const res = await app.inject(`/ui/${a}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.doesNotMatch(res.body, /https?:\/\/(?!www\.w3\.org)/, `${a} loads nothing from another origin`);
    gzipTotal += gzipSync(res.rawPayload).length;
  }
  assert.ok(gzipTotal < 200 * 1024, `page weight ${gzipTotal} B gzipped is under 200 KB`);
  assert.equal((await app.inject('/ui/assets/nope.js')).statusCode, 404);
});

test('with ignoreTrailingSlash (as buildApp sets it) /ui/ still serves the page and /ui redirects', async () => {
  const app = await appWith(path.join(tmp, 'dist-a'), true);
  const index = await app.inject('/ui/');
  assert.equal(index.statusCode, 200);
  assert.match(index.body, /<script type="module" src="assets\//);
  assert.equal(index.headers['cache-control'], 'no-cache');
  const redirect = await app.inject('/ui?x=1');
  assert.equal(redirect.statusCode, 301);
  assert.equal(redirect.headers.location, '/ui/?x=1');
});

test('answers 503 with a clear detail when the UI is not built (the server never builds it)', async () => {
  const app = await appWith(path.join(tmp, 'dist-missing'));
  const res = await app.inject('/ui/');
  assert.equal(res.statusCode, 503);
  assert.match(res.json().detail, /npm run build/);
  assert.equal(res.json().code, 'MC_ERR_UI_UNAVAILABLE');
});

test('config.json carries the edge threshold from the settings', async () => {
  const app = await appWith(path.join(tmp, 'dist-a'));
  const res = await app.inject('/ui/config.json');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { edge_threshold: 0.07, edge_threshold_source: 'server' });
});

test('baselines need the API key; 404 before the simulation ran, rows after', async () => {
  const app = await appWith(path.join(tmp, 'dist-a'));
  const url = '/ui/data/roi-baselines.json';
  const noKey = await app.inject(url);
  assert.equal(noKey.statusCode, 401);
  assert.equal(noKey.json().code, 'MC_ERR_UNAUTHORIZED');
  assert.equal(
    (await app.inject({ url, headers: { 'x-api-key': 'wrong-wrong-wrong-wrong' } })).statusCode,
    401,
  );
  const absent = await app.inject({ url, headers: { 'x-api-key': KEY } });
  assert.equal(absent.statusCode, 404);
  assert.equal(absent.json().code, 'MC_ERR_NOT_FOUND');
  await publishArtifacts({ db, store }, { roiBaselines: FIXTURE_BASELINES_CSV });
  const ok = await app.inject({ url, headers: { 'x-api-key': KEY } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().length, 4);
});

test('no /ui route appears in the OpenAPI description', async () => {
  const app = await appWith(path.join(tmp, 'dist-a'));
  const paths = Object.keys((app.swagger() as { paths?: Record<string, unknown> }).paths ?? {});
  assert.deepEqual(
    paths.filter((p) => p.startsWith('/ui')),
    [],
  );
});
