import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { a11yProblems } from './a11y.js';
import { screenshotPath } from './browser.js';

async function text(l: Locator): Promise<string> {
  return ((await l.textContent()) ?? '').trim();
}

export interface ScenarioOptions {
  /** Prefix of screenshot names, e.g. `embedded`. */
  name: string;
  /** Expect a challenger model to be assigned (the live call then answers with model_version challenger). */
  expectChallenger?: boolean;
}

/** Problems the page reported: script errors, CSP violations, failed requests for UI assets. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (
      m.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())
    )
      problems.push(`console: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  return problems;
}

/**
 * The main user journey: load, wrong key (401 → asked again), right key, cards with odds and
 * probabilities, filter by region, challenger, live prediction, report link; screenshots on the way.
 */
export async function runUiScenario(browser: Browser, baseUrl: string, key: string, opts: ScenarioOptions) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const problems = watchPage(page);
  try {
    await page.goto(`${baseUrl}/ui/`);
    await page.getByRole('textbox', { name: 'API key' }).waitFor();

    // A wrong key: 401, a clear message, and the prompt again.
    await page.getByRole('textbox', { name: 'API key' }).fill('wrong-key-wrong-key-000');
    await page.getByRole('button', { name: 'Use key' }).click();
    const keyError = page.getByTestId('key-error');
    await keyError.waitFor();
    assert.match(await text(keyError), /401/);

    await page.getByRole('textbox', { name: 'API key' }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    const firstCard = page.locator('article.card').first();
    await firstCard.waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
      // Say what the page showed instead (an error message, a spinner) and what it reported.
      const shown = (
        (await page
          .locator('main')
          .textContent()
          .catch(() => '')) ?? ''
      ).slice(0, 600);
      throw new Error(`${err.message}\npage shows: ${shown}\nproblems: ${problems.join('; ')}`);
    });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('matchcast.apiKey')), key);

    // Cards show odds, probabilities as one bar, the predicted outcome.
    const withOdds = page.locator('article.card', {
      has: page.locator('td[data-field="odd-0"]', { hasText: /\d\.\d\d/ }),
    });
    assert.ok((await withOdds.count()) > 0, 'some card shows decimal odds');
    const bar = firstCard.locator('.probbar').first();
    assert.match((await bar.getAttribute('aria-label')) ?? '', /Home win \d+%, draw \d+%, away win \d+%/);
    assert.equal(await bar.locator('.seg').count(), 3);
    assert.match(await text(firstCard.locator('.pick')), /Prediction: (Home win|Draw|Away win)/);
    assert.match(await text(firstCard.locator('td[data-field="edge-0"]')), /^[+–-]|^\+?-?\d/);
    await page.screenshot({ path: await screenshotPath(`${opts.name}-1-cards`), fullPage: false });

    // Filter by region: every card left belongs to it.
    const select = page.getByLabel('Region', { exact: true });
    const options = await select
      .locator('option')
      .evaluateAll((os) =>
        os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? '' })),
      );
    assert.ok(options.length >= 2, 'at least one region to filter by');
    const region = options[1];
    const before = await text(page.getByTestId('card-count'));
    await select.selectOption(region.value);
    await page.waitForFunction((name) => {
      const metas = Array.from(document.querySelectorAll('article.card .meta:not([data-field])'));
      return metas.length > 0 && metas.every((m) => m.textContent?.includes(name));
    }, region.text);
    const after = await text(page.getByTestId('card-count'));
    assert.notEqual(after, before, 'the count changes with the region filter');
    await page.screenshot({ path: await screenshotPath(`${opts.name}-2-region-filter`) });

    // Challenger: the model panel marks it and the live button uses it.
    await page.getByRole('radio', { name: 'Challenger' }).check();
    await page.locator('.model-table th.sel', { hasText: 'challenger' }).waitFor();

    // Live prediction through the keyboard: focus the button and press Enter.
    const card = page.locator('article.card').first();
    const liveButton = card.getByRole('button', { name: /Live prediction/ });
    await liveButton.focus();
    await page.keyboard.press('Enter');
    const result = card.getByTestId('live-result').or(card.locator('.live-error'));
    await result.waitFor({ timeout: 35_000 });
    const live = {
      error: (await card.locator('.live-error').count()) > 0 ? await text(card.locator('.live-error')) : null,
      stage: await text(card.locator('[data-field="stage"]')).catch(() => ''),
      cached: await text(card.locator('[data-field="cached"]')).catch(() => ''),
      runId: await card
        .locator('[data-field="run-id"]')
        .getAttribute('title')
        .catch(() => ''),
    };
    if (opts.expectChallenger !== false) {
      assert.equal(live.error, null, `live prediction failed: ${live.error}`);
      assert.match(live.stage, /challenger/);
      assert.match(live.cached, /^(yes|no)$/);
      assert.ok(live.runId && live.runId.length > 0, 'run id shown');
    }
    assert.match(await text(page.getByTestId('announcer')), /Live prediction/);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: await screenshotPath(`${opts.name}-3-live-challenger`) });

    // A second call for the same match and stage: the server's cache answers.
    await liveButton.click();
    await page.waitForFunction(
      (id) =>
        document.querySelector(`article[data-match-id="${id}"] [data-field="cached"]`)?.textContent === 'yes',
      await card.getAttribute('data-match-id'),
      { timeout: 35_000 },
    );

    // ROI per region and the models panel.
    await page.locator('table.roi tbody tr').first().waitFor();
    const driftText = await text(page.getByTestId('drift'));
    assert.match(driftText, /Drift score|No drift report/);
    await page.locator('#roi').scrollIntoViewIfNeeded();
    // Element shots: a full-page shot leaves off-screen cards blank (content-visibility: auto).
    await page.locator('#roi').screenshot({ path: await screenshotPath(`${opts.name}-4-roi`) });
    await page.locator('#models').screenshot({ path: await screenshotPath(`${opts.name}-5-models`) });

    // Every control is named and text contrast meets WCAG AA.
    assert.deepEqual(await a11yProblems(page), []);

    // A report link opens in a new tab and loads.
    const link = page.getByRole('link', { name: /Latest drift report/ });
    assert.equal(await link.getAttribute('target'), '_blank');
    const [popup] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState('load');
    const response = await popup.title();
    assert.equal(
      await popup.evaluate('document.contentType'),
      'text/html',
      `the report opened: ${popup.url()}`,
    );
    await popup.screenshot({ path: await screenshotPath(`${opts.name}-6-report`) });
    assert.ok(popup.url().length > 0);
    await popup.close();

    // The key is asked once: a reload keeps it.
    await page.reload();
    await page.locator('article.card').first().waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'API key' }).count(), 0);
    assert.ok(
      await page.getByRole('radio', { name: 'Challenger' }).isChecked(),
      'the stage choice survives a reload',
    );

    // Phone-sized screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: await screenshotPath(`${opts.name}-7-phone`) });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling on a phone (overflow ${overflow}px)`);

    assert.deepEqual(problems, [], 'no script errors, CSP violations or failed requests');
    return { live, reportTitle: response };
  } finally {
    await context.close();
  }
}
