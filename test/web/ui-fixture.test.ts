import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './helpers/browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { runUiScenario } from './helpers/scenario.js';

// The journey against a stand-in API under the strict CSP (style-src 'self', no 'unsafe-inline').
let server: FixtureServer;
let browser: Browser;

before(async () => {
  if (skipWithoutChromium) return;
  server = await startFixtureServer({ cards: 48 });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('UI journey on the fixture API under a strict CSP', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  await runUiScenario(browser, server.url, server.key, { name: 'fixture' });
});
