import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './helpers/browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { runUiScenario } from './helpers/scenario.js';

// The journey against a stand-in API under the strict CSP (style-src 'self', no 'unsafe-inline').
let server: FixtureServer;
let browser: Browser;
let dist: string;

before(async () => {
  if (skipWithoutChromium) return;
  // A fresh build of the current sources in a folder of its own.
  dist = await mkdtemp(path.join(tmpdir(), 'mc-ui-dist-'));
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: path.join(dist, 'dist') });
  server = await startFixtureServer({ cards: 48, distDir: path.join(dist, 'dist') });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dist) await rm(dist, { recursive: true, force: true });
});

test('UI journey on the fixture API under a strict CSP', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  await runUiScenario(browser, server.url, server.key, { name: 'fixture' });
});
