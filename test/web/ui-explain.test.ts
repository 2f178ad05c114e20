import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from './helpers/browser.js';
import { type FixtureServer, startFixtureServer } from './helpers/fixture-server.js';

// A card's explanation chart, the replay clock in the header and the drift panel's reason, in
// Chromium under the fixture API's strict CSP (no inline scripts or styles).
let server: FixtureServer;
let browser: Browser;
let dist: string;
const text = async (l: Locator) => ((await l.textContent()) ?? '').trim();
const EMPTY_WINDOW =
  'Empty window: no matches kick off in 2026-10-23 – 2026-11-22, so there is nothing to compare with the training rows.';

before(async () => {
  if (skipWithoutChromium) return;
  dist = await mkdtemp(path.join(tmpdir(), 'mc-ui-explain-'));
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: path.join(dist, 'dist') });
  server = await startFixtureServer({
    cards: 4,
    distDir: path.join(dist, 'dist'),
    clock: '2026-11-22T14:05:00.000Z',
    drift: { drift_score: null, no_score_reason: 'empty_window', no_score_detail: EMPTY_WINDOW },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dist) await rm(dist, { recursive: true, force: true });
});

test('a card opens its explanation chart; the header shows the replay clock; drift says why there is no score', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) errors.push(m.text());
  });
  try {
    await page.goto(`${server.url}/ui/`);
    assert.equal(await text(page.getByTestId('replay-clock')), 'Replay clock 2026-11-22 14:05 UTC');
    assert.equal(await text(page.getByTestId('drift')), EMPTY_WINDOW);
    await page.getByRole('textbox', { name: 'API key' }).fill(server.key);
    await page.getByRole('button', { name: 'Use key' }).click();
    const card = page.locator('article.card').first();
    await card.waitFor({ timeout: 30_000 });
    const legend = await text(card.locator('.legend .k0'));
    await card.getByRole('button', { name: 'Why this prediction?' }).click();
    const panel = card.getByTestId('explain-panel');
    await panel.waitFor({ timeout: 10_000 });
    assert.deepEqual(
      await panel.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-group'))),
      ['baseline', 'elo', 'market'],
    );
    // Three bars per part (home, draw, away), drawn as SVG under the strict CSP.
    assert.equal(await panel.locator('tr[data-group="elo"] rect.xbar').count(), 3);
    assert.deepEqual(await panel.locator('tr[data-group="elo"] td.num').allTextContents(), [
      '+0.20',
      '−0.05',
      '−0.15',
    ]);
    assert.match(
      await text(panel.locator('[data-field="explain-model"]')),
      /^champion v3 \(multinomial_logit\)/,
    );
    // The model's probabilities in the panel are the card's.
    assert.ok((await text(panel.locator('[data-field="explain-proba"]'))).includes(legend));
    assert.match(
      await text(panel.locator('[data-field="explain-market"]')),
      /Market \(de-margined, observed 2026-11-20 12:00 UTC\): 1 46%/,
    );
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
