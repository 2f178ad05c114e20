import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, screenshotPath, skipWithoutChromium } from './helpers/browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';
import { makeCards } from './helpers/fixtures.js';

// Requirement: "a browser shows fixtures whose odds and probabilities change as the clock moves". The
// served predictions move while the page is open (new odds re-predicted, a replay's clock): the page
// reloads its cards on its own, keeps the filters, and labels the market-free fallback.
let server: FixtureServer;
let browser: Browser;
let dist: string;

const cards = makeCards(48);
const MOVING = cards.findIndex((c) => c.status === 'scheduled' && c.odd_home !== null);

before(async () => {
  if (skipWithoutChromium) return;
  dist = await mkdtemp(path.join(tmpdir(), 'mc-ui-dist-'));
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: path.join(dist, 'dist') });
  // Before its odds arrive the fixture is scored by the market-free fallback, without odds.
  const first = cards.map((c, i) =>
    i === MOVING
      ? {
          ...c,
          model_stage: 'fallback',
          odd_home: null,
          odd_draw: null,
          odd_away: null,
          used_odd_home: null,
          used_odd_draw: null,
          used_odd_away: null,
          odds_observed_at: null,
        }
      : c,
  );
  server = await startFixtureServer({ cards: first, distDir: path.join(dist, 'dist') });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dist) await rm(dist, { recursive: true, force: true });
});

test('the cards follow the served predictions while the page is open (odds arrive: fallback → champion)', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(20_000);
  await page.goto(`${server.url}/ui/?refresh=1`);
  await page.getByRole('textbox', { name: 'API key' }).fill(server.key);
  await page.getByRole('button', { name: 'Use key' }).click();
  const id = cards[MOVING].match_id;
  const card = page.locator(`article.card[data-match-id="${id}"]`);
  await card.waitFor();
  assert.equal(
    (await card.locator('[data-field="model-note"]').textContent())?.trim(),
    'No odds yet: market-free model',
  );
  assert.equal((await card.locator('td[data-field="odd-0"]').textContent())?.trim(), '–');

  // The opening odds arrive and the match is re-predicted by the champion: no reload by the user.
  server.setCards(
    cards.map((c, i) =>
      i === MOVING
        ? {
            ...c,
            model_stage: 'champion',
            proba_home: 0.61,
            proba_draw: 0.24,
            proba_away: 0.15,
            predicted_class: 0,
            odd_home: 1.55,
            odd_draw: 4.1,
            odd_away: 6.2,
            used_odd_home: 1.55,
            used_odd_draw: 4.1,
            used_odd_away: 6.2,
            odds_observed_at: '2026-11-22T10:00:00.000Z',
          }
        : c,
    ),
  );
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent?.trim() === '1.55',
    `article.card[data-match-id="${id}"] td[data-field="odd-0"]`,
    { timeout: 15_000 },
  );
  assert.match((await card.locator('.legend').textContent()) ?? '', /1 61%/);
  assert.match(
    (await card.locator('[data-field="odds-observed-at"]').textContent()) ?? '',
    /2026-11-22 10:00 UTC/,
  );
  assert.equal(await card.locator('[data-field="model-note"]').count(), 0);
  await card.screenshot({ path: await screenshotPath('refresh-card') });
  await page.close();
});
