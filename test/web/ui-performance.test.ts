// The performance view and the promotion guard in the browser (Chromium, strict CSP): the real UI
// bundle, the real `/monitoring/performance` and `/monitoring/promotion` routes over a folder store
// holding figures computed by the real analytics functions.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { type JoinedMatch, performanceGroups } from '../../src/analytics/performance.js';
import type { AppContext } from '../../src/api/context.js';
import { monitoringPerformanceRoutes } from '../../src/api/routes/monitoring-performance.js';
import { uiRoutes } from '../../src/api/routes/ui.js';
import { parseConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createRegistry } from '../../src/registry/index.js';
import { createObjectStore, type ObjectStore } from '../../src/storage/index.js';
import { publishArtifacts } from '../helpers/served.js';
import { launchChromium, screenshotPath, skipWithoutChromium } from './helpers/browser.js';
import { watchPage } from './helpers/scenario.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'";

let tmp: string;
let store: ObjectStore;
let db: Database;
let app: FastifyInstance;
let browser: Browser;
let url: string;
let groups: ReturnType<typeof performanceGroups>;

function season(): JoinedMatch[] {
  let a = 17;
  const r = () => {
    a = (a * 1103515245 + 12345) % 2147483648;
    return a / 2147483648;
  };
  const rows: JoinedMatch[] = [];
  for (let i = 0; i < 240; i++) {
    const h = 0.3 + 0.35 * r();
    const p: [number, number, number] = [h, 0.26, 1 - h - 0.26];
    const u = r();
    const label = (u < p[0] ? 0 : u < p[0] + p[1] ? 1 : 2) as 0 | 1 | 2;
    const open: [number, number, number] = [0.45, 0.27, 0.28];
    const region = i % 2 ? 'Southland' : 'Northland';
    rows.push({
      match_id: i + 1,
      region_id: i % 2 ? 2 : 1,
      region_name: region,
      start_time_utc: new Date(Date.UTC(2024, 0, 6) + Math.floor(i / 8) * 7 * 86_400_000),
      label,
      proba: p,
      opening: open,
      closing: p.map((x) => x * 0.98 + 0.02 / 3) as [number, number, number],
    });
  }
  return rows;
}

before(async () => {
  if (skipWithoutChromium) return;
  tmp = await mkdtemp(path.join(tmpdir(), 'mc-ui-perf-'));
  const config = parseConfig({ API_KEY: 'ui-perf-key-0123456789abcdef', DATA_DIR: tmp, LOG_LEVEL: 'silent' });
  store = createObjectStore(config);
  db = await openDatabase(config, { memory: true });
  const registry = createRegistry({ db, store }, config);
  const asOf = new Date(Date.UTC(2024, 8, 1));
  groups = performanceGroups(season(), { matches: 300, days: 0 }, asOf);
  await publishArtifacts(
    { db, store },
    {
      performanceLatest: JSON.stringify({
        kind: 'served',
        generated_at: asOf.toISOString(),
        as_of: asOf.toISOString(),
        window: { matches: 300, days: 0 },
        demargin: 'power',
        n_served_finished: 240,
        n_unserved_finished: 0,
        groups,
        backtest: null,
        results: { n_finished: 240, last_result_kickoff: null, last_new_result_at: asOf.toISOString() },
        report_filename: null,
      }),
    },
  );
  const v = await registry.registerVersion({
    metrics: { log_loss: 0.99, market_open_log_loss: 0.98, model_on_open_log_loss: 0.99, market_open_n: 120 },
    params: {},
    feature_names: ['elo_diff'],
    training_cutoff: asOf,
    artifact: '{}',
  });
  await registry.writeComparison({
    version: v.version,
    champion_version: null,
    method: 'no-champion',
    validation_from: null,
    validation_to: null,
    new_log_loss: 0.99,
    champion_log_loss: null,
    tolerance: 0.0005,
    opening_margin: 0,
    opening: { n: 120, model_log_loss: 0.99, line_log_loss: 0.98 },
    closing: null,
    champion_verdict: 'no-champion',
    opening_verdict: 'worse',
    promote: false,
    reason: 'no champion yet; on 120 matches with opening odds 0.99000 >= opening line 0.98000',
    decided_at: asOf.toISOString(),
  });
  const ctx = { config, log: createLogger('silent'), db, store, registry } as unknown as AppContext;
  const dist = path.join(tmp, 'dist');
  const { buildWeb } = await import('../../scripts/build-web.mjs');
  await buildWeb({ outDir: dist });
  app = Fastify() as unknown as FastifyInstance;
  app.addHook('onSend', async (_req, reply) => {
    reply.header('content-security-policy', CSP);
  });
  await uiRoutes(app, ctx, { distDir: dist });
  await monitoringPerformanceRoutes(app, ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await store?.close();
  await db?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('performance view: realised log loss against both lines per region, reliability diagram, guard verdict', {
  skip: skipWithoutChromium,
  timeout: 60_000,
}, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(20_000);
  const problems = watchPage(page);
  await page.goto(`${url}/ui/`);
  await page.waitForSelector('[data-testid=performance]');
  const rows = await page.$$eval('.perf-table tbody tr', (trs) =>
    trs.map((tr) => tr.getAttribute('data-region')),
  );
  assert.deepEqual(rows, ['all', 'Northland', 'Southland']);
  const edge = await page.textContent('.perf-table tr[data-region=all] [data-field=edge-opening]');
  const all = groups[0];
  assert.equal(
    edge?.trim(),
    `${all.opening.edge_log_loss! > 0 ? '+' : ''}${all.opening.edge_log_loss!.toFixed(4)}`,
  );
  // Three lines over time, each drawn.
  const paths = await page.$$eval('[data-testid=perf-over-time] path[data-line]', (ps) =>
    ps.map((p) => [p.getAttribute('data-line'), (p.getAttribute('d') ?? '').length > 10]),
  );
  assert.deepEqual(paths, [
    ['closing line', true],
    ['opening line', true],
    ['served', true],
  ]);
  const dots = async () => page.$$eval('[data-testid=perf-reliability] circle', (c) => c.length);
  assert.equal(await dots(), all.reliability.filter((b) => b.n > 0).length);
  await page.selectOption('[data-testid=perf-region]', 'Southland');
  const south = groups.find((g) => g.region_name === 'Southland')!;
  await page.waitForFunction(
    (label) =>
      document.querySelector('[data-testid=perf-over-time]')?.getAttribute('aria-label')?.includes(label),
    'Southland',
  );
  assert.equal(await dots(), south.reliability.filter((b) => b.n > 0).length);
  // The models panel shows the guard's verdict and the bars.
  await page.waitForSelector('[data-field=promotion-verdict]');
  assert.equal((await page.textContent('[data-field=promotion-verdict]'))?.trim(), 'was refused');
  assert.match(
    (await page.textContent('[data-testid=promotion]')) ?? '',
    /Opening line \(required\)0\.98000\.9900worse/,
  );
  await page.locator('#performance').screenshot({ path: await screenshotPath('performance-view') });
  assert.deepEqual(problems, [], 'no script error or CSP violation');
  await page.close();
});
