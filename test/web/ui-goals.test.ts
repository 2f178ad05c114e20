import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './helpers/browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// Goals markets on a card, in Chromium under the fixture API's strict CSP.
let server: FixtureServer;
let browser: Browser;
let dist: string;
/** The text of an element (its DOM text content, trimmed). */
const text = async (l: Locator) => ((await l.textContent()) ?? '').trim();

before(async () => {
  if (skipWithoutChromium) return;
  dist = await mkdtemp(path.join(tmpdir(), 'mc-ui-goals-'));
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: path.join(dist, 'dist') });
  server = await startFixtureServer({ cards: 6, distDir: path.join(dist, 'dist') });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dist) await rm(dist, { recursive: true, force: true });
});

test('a card shows expected goals, O/U 2.5 and BTTS with odds and edge, and the score matrix on demand', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(`${server.url}/ui/`);
    await page.getByRole('textbox', { name: 'API key' }).fill(server.key);
    await page.getByRole('button', { name: 'Use key' }).click();
    const card = page.locator('article.card').first();
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: 'Goals markets' }).click();
    const panel = card.getByTestId('goals-panel');
    await panel.waitFor({ timeout: 10_000 });
    assert.match(await text(panel.locator('[data-field="xg"]')), /Expected goals \d\.\d\d – \d\.\d\d/);
    const over = Number((await text(panel.locator('[data-field="over25-p"]'))).replace('%', ''));
    const under = Number((await text(panel.locator('[data-field="under25-p"]'))).replace('%', ''));
    assert.ok(Math.abs(over + under - 100) <= 1, `${over} + ${under}`);
    assert.equal(await text(panel.locator('[data-field="over25-odd"]')), '1.90');
    assert.match(await text(panel.locator('[data-field="btts-yes-edge"]')), /^[+-]?\d+\.\d%/);
    assert.equal(await card.getByTestId('score-matrix').count(), 0);
    await panel.getByRole('button', { name: 'Score matrix' }).click();
    const matrix = card.getByTestId('score-matrix');
    await matrix.waitFor();
    assert.equal(await matrix.locator('tbody tr').count(), 6);
    assert.equal(await matrix.locator('tbody tr').first().locator('td').count(), 6);
    await panel.getByRole('button', { name: 'Hide score matrix' }).click();
    assert.equal(await card.getByTestId('score-matrix').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
