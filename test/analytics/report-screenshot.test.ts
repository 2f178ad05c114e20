import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { assessDataQuality } from '../../src/analytics/data-quality.js';
import { renderDataQualityReport } from '../../src/analytics/data-quality-html.js';
import { computeDrift, DEFAULT_DRIFT_THRESHOLDS } from '../../src/analytics/drift.js';
import type { DriftReport } from '../../src/analytics/drift-report.js';
import { renderDriftReport } from '../../src/analytics/drift-report-html.js';
import type { Match, OddsRecord } from '../../src/domain/index.js';
import { rng } from './synthetic.js';

const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve('test-results');

function reports(): { drift: string; quality: string } {
  const r = rng(3);
  const row = (shift: number) => ({
    match_id: Math.floor(r() * 1e9),
    elo_expected_home: 0.5 + (r() - 0.5) * 0.4,
    mkt_home: 0.45 - shift + (r() - 0.5) * 0.3,
    form_points_home: Math.floor(r() * 19),
    new_team_home: r() < 0.1 ? 1 : 0,
    rest_days_home: r() < 0.05 ? null : 3 + Math.floor(r() * 5),
  });
  const ref = Array.from({ length: 2000 }, () => row(0));
  const cur = Array.from({ length: 300 }, () => row(0.12));
  const names = ['elo_expected_home', 'mkt_home', 'form_points_home', 'new_team_home', 'rest_days_home'];
  const features = computeDrift(ref, cur, names);
  const preds = (s: number) =>
    Array.from({ length: 400 }, () => {
      const h = 0.45 - s + (r() - 0.5) * 0.3;
      return { proba_home: h, proba_draw: 0.27, proba_away: 1 - h - 0.27 };
    });
  const report: DriftReport = {
    generated_at: '2026-11-22T04:00:00.000Z',
    as_of: '2026-11-21T00:00:00.000Z',
    window: {
      start: '2026-10-22T00:00:00.000Z',
      end: '2026-11-21T00:00:00.000Z',
      days: 30,
      includes_future: true,
    },
    reference: {
      description: 'training rows of model version 3 <script>alert(1)</script>',
      model_version: '3',
      model_run_id: 'abc',
      training_cutoff: '2026-07-01T00:00:00.000Z',
      n_rows: ref.length,
    },
    current: { n_rows: cur.length, n_finished: 120, n_future: 180 },
    thresholds: DEFAULT_DRIFT_THRESHOLDS,
    features,
    predictions: computeDrift(preds(0), preds(0.1), ['proba_home', 'proba_draw', 'proba_away']),
    performance: { n_matches: 120, log_loss: 1.01, accuracy: 0.49, validation_log_loss: 0.98 },
  };
  const m = (id: number, day: number, home: string, away: string, hs: number | null): Match => ({
    id,
    regionId: 1,
    regionName: 'england',
    tournamentName: 'Premier League',
    season: '2026-2027',
    startTimeUtc: new Date(Date.UTC(2026, 10, day, 15)),
    homeTeamName: home,
    awayTeamName: away,
    status: hs === null ? 'scheduled' : 'finished',
    homeScore: hs,
    awayScore: hs === null ? null : 1,
  });
  const odds = (id: number, h: number, d: number, a: number): OddsRecord => ({
    match_id: id,
    odd_home: h,
    odd_draw: d,
    odd_away: a,
    open_home: null,
    open_draw: null,
    open_away: null,
    close_home: h,
    close_draw: d,
    close_away: a,
    source: 'test',
  });
  const quality = assessDataQuality({
    asOf: new Date('2026-11-21T00:00:00Z'),
    now: new Date('2026-11-22T04:00:00Z'),
    matches: [m(1, 1, 'A', 'B', 2), m(2, 1, 'A', 'C', 0), m(3, 25, 'D', 'E', null)],
    odds: [odds(1, 1.0, 3, 4), odds(2, 2, 3.2, 3.9), odds(3, 1.5, 1.5, 1.5)],
    featureRows: cur,
    featureNames: names,
  });
  return { drift: renderDriftReport(report), quality: renderDataQualityReport(quality) };
}

test('the HTML reports render in headless Chromium with their charts drawn, offline', {
  skip: !existsSync(CHROMIUM) && `${CHROMIUM} not found: install it with apt-get install -y chromium`,
  timeout: 60_000,
}, async () => {
  const { chromium } = await import('playwright-core');
  mkdirSync(OUT, { recursive: true });
  const { drift, quality } = reports();
  assert.doesNotMatch(drift, /<script>alert/);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 30_000,
  });
  try {
    for (const [name, html, minCharts] of [
      ['drift_report_20261122T040000Z.html', drift, 8],
      ['data_quality_20261122T040000Z.html', quality, 1],
    ] as const) {
      const file = path.join(OUT, name);
      writeFileSync(file, html);
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const requests: string[] = [];
      page.on('request', (req) => requests.push(req.url()));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 20_000 });
      // Self-contained: the page asked for nothing but itself.
      assert.deepEqual(
        requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')),
        [],
      );
      const charts = await page.$$eval('svg.chart', (els) =>
        els.map((e) => {
          const box = e.getBoundingClientRect();
          const bars = Array.from(e.querySelectorAll('rect.bar')).filter(
            (b) => b.getBoundingClientRect().height > 0.5,
          );
          return { w: box.width, h: box.height, bars: bars.length };
        }),
      );
      assert.ok(charts.length >= minCharts, `${name}: ${charts.length} charts`);
      for (const c of charts) {
        assert.ok(c.w > 100 && c.h > 60, `chart size ${c.w}×${c.h}`);
        assert.ok(c.bars > 0, 'bars drawn');
      }
      if (name.startsWith('drift')) {
        assert.equal(await page.textContent('#drift-score'), '0.200');
        assert.equal(await page.locator('h2').first().textContent(), 'Summary');
      } else {
        const status = await page.locator('h1 .badge').textContent();
        assert.equal(status, 'fail');
        const body = await page.textContent('body');
        assert.match(body ?? '', /Impossible odds/);
        assert.match(body ?? '', /Duplicate matches/);
      }
      const shot = path.join(OUT, name.replace('.html', '.png'));
      await page.screenshot({ path: shot, fullPage: true });
      assert.ok(existsSync(shot));
      await page.close();
    }
  } finally {
    await browser.close();
  }
});
