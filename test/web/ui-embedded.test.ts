import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './helpers/browser.js';
import { type EmbeddedServer, skipWithoutRuntime, startEmbeddedServer } from './helpers/embedded-server.js';
import { runUiScenario } from './helpers/scenario.js';

// The issue-6 journey against the real embedded server (`matchcast start`), in Chromium.
const skip = skipWithoutChromium || skipWithoutRuntime;
let server: EmbeddedServer;
let browser: Browser;

before(async () => {
  if (skip) return;
  // The spawned server serves web/dist: build it from the current sources first.
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb();
  [server, browser] = await Promise.all([startEmbeddedServer(), launchChromium()]);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the embedded server serves the UI under /ui/ with its security headers', { skip }, async () => {
  const res = await fetch(`${server.url}/ui/`);
  assert.equal(
    res.status,
    200,
    `GET /ui/ → ${res.status}: is uiRoutes registered in src/api/routes/index.ts?`,
  );
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'/);
  const redirect = await fetch(`${server.url}/ui`, { redirect: 'manual' });
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), '/ui/');
  const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    paths: Record<string, unknown>;
  };
  assert.deepEqual(
    Object.keys(openapi.paths).filter((p) => p.startsWith('/ui')),
    [],
  );
});

test('UI journey on the embedded server', { skip, timeout: 120_000 }, async () => {
  await runUiScenario(browser, server.url, server.key, { name: 'embedded' });
});
