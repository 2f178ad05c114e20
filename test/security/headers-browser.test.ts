// Security headers (helmet) on every kind of response, and /docs and /ui/ still working under the
// CSP in a real headless Chromium (playwright-core): no CSP violation, swagger UI renders operations.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type EmbeddedApp, startEmbeddedApp } from '../contract/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const noChromium =
  !existsSync(CHROMIUM) && `${CHROMIUM} not installed: the browser checks of the CSP are skipped`;

let app: EmbeddedApp;
before(async () => {
  app = await startEmbeddedApp();
});
after(async () => {
  await app?.close();
});

test('security headers: helmet document set on HTML, the OWASP REST set on JSON, error and 401 responses', async () => {
  const urls: Array<[string, string | null, 'document' | 'api']> = [
    ['/healthcheck/', null, 'api'],
    ['/predict/cards/', app.apiKey, 'api'],
    ['/predict/cards/', null, 'api'],
    ['/predict/precomputed/1', app.apiKey, 'api'],
    ['/no/such/page', null, 'api'],
    ['/livescores/?year=x', null, 'api'],
    ['/docs/', null, 'document'],
    ['/ui/', null, 'document'],
    ['/metrics', null, 'api'],
  ];
  for (const [url, key, kind] of urls) {
    const res = await app.fetch(url, { key });
    await res.arrayBuffer();
    const h = res.headers;
    const csp = h.get('content-security-policy') ?? '';
    if (kind === 'document') {
      assert.match(csp, /default-src 'self'/, `${url} CSP`);
      assert.match(csp, /script-src 'self'(;|$)/, `${url}: no inline or remote script`);
      assert.match(csp, /object-src 'none'/, url);
      assert.ok(h.get('cross-origin-opener-policy'), `${url} COOP`);
    } else {
      // A JSON body may load nothing and be framed by nothing.
      assert.equal(csp, "default-src 'none';frame-ancestors 'none'", `${url} CSP`);
      assert.equal(h.get('x-frame-options'), 'DENY', url);
    }
    assert.match(csp, /frame-ancestors 'none'/, url);
    assert.equal(h.get('x-content-type-options'), 'nosniff', url);
    assert.ok(h.get('x-frame-options'), `${url} x-frame-options`);
    assert.ok(h.get('strict-transport-security'), `${url} HSTS`);
    assert.ok(h.get('referrer-policy'), `${url} referrer-policy`);
    assert.equal(h.get('cross-origin-resource-policy'), 'same-origin', url);
    assert.equal(h.get('x-powered-by'), null, `${url} no x-powered-by`);
  }
});

test('/docs and /ui/ render in headless Chromium under the CSP with no violation', {
  skip: noChromium,
}, async () => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const context = await browser.newContext();
    // The UI keeps the key in sessionStorage; set it as a user who typed it would.
    await context.addInitScript((key) => sessionStorage.setItem('matchcast.apiKey', key), app.apiKey);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /content security policy|refused to/i.test(m.text()))
        problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${page.url()}: pageerror ${e.message}`));
    await page.exposeFunction('__cspViolation', (v: string) =>
      problems.push(`${page.url()}: violation ${v}`),
    );
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { __cspViolation(v: string): void }).__cspViolation(
          `${e.violatedDirective} ${e.blockedURI}`,
        );
      });
    });

    await page.goto(`${app.url}/docs`, { waitUntil: 'networkidle', timeout: 30_000 });
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const operations = await page.locator('.opblock').count();
    assert.ok(operations >= 15, `swagger UI rendered ${operations} operations`);
    const text = (await page.locator('body').textContent()) ?? '';
    assert.match(text, /\/predict\/cards\//);
    assert.match(text, /Authorize/, 'the ApiKeyAuth scheme is offered');

    await page.goto(`${app.url}/ui/`, { waitUntil: 'networkidle', timeout: 30_000 });
    await page.waitForTimeout(500);
    const uiText = (await page.locator('body').textContent()) ?? '';
    assert.ok(uiText.trim().length > 50, `the UI rendered: ${uiText.slice(0, 200)}`);
    assert.deepEqual(problems, [], 'CSP violations or page errors');
  } finally {
    await browser.close();
  }
});
