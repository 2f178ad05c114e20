/**
 * UI benchmark: page weight of /ui/ (gzipped bytes of every file the page loads) and the time to
 * first render 500 match cards, read from the page's performance marks.
 *
 *   node --import tsx bench/ui-weight-render.ts [--runs 5] [--cards 500] [--big 40000]
 *
 * Runs the real `uiRoutes` on a stand-in API (test/web/helpers/fixture-server.ts) so the number of
 * cards is exact; headless Debian Chromium through playwright-core.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { buildWeb } from '../scripts/build-web.mjs';
import { CHROMIUM, launchChromium } from '../test/web/helpers/browser.js';
import { startFixtureServer } from '../test/web/helpers/fixture-server.js';
import { makeCards } from '../test/web/helpers/fixtures.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    cards: { type: 'string', default: '500' },
    big: { type: 'string', default: '40000' },
  },
});
const RUNS = Number(values.runs);

/** Every card upcoming, so the default view ("Upcoming") holds all of them. */
function upcomingCards(n: number) {
  return makeCards(n, Date.now() - 3_600_000 * n).map((c) => ({
    ...c,
    status: 'scheduled' as const,
    is_future: true,
    home_score: null,
    away_score: null,
    outcome: null,
    outcome_label: null,
    prediction_correct: null,
  }));
}

const jsonGzip = (v: unknown) => gzipSync(JSON.stringify(v), { level: 6 }).length;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Run {
  rendered: number;
  fetchToCommit: number;
  fetchToPaint: number;
  navToPaint: number;
  cardsInDom: number;
  domNodes: number;
  /** Main-thread busy time of the page (CDP Performance.getMetrics TaskDuration), ms: less sensitive to CPU contention. */
  mainThreadMs: number;
  scriptMs: number;
  styleLayoutMs: number;
}

async function measure(
  browser: Browser,
  url: string,
  key: string,
  pageSize: number | null,
): Promise<{ runs: Run[]; weight: Record<string, number> }> {
  const runs: Run[] = [];
  const weight: Record<string, number> = {};
  for (let i = 0; i < RUNS + 1; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((k) => sessionStorage.setItem('matchcast.apiKey', k), key);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const bodies: Promise<void>[] = [];
    if (i === 0) {
      page.on('response', (res) => {
        const u = new URL(res.url());
        if (u.pathname.startsWith('/ui/')) {
          bodies.push(
            res
              .body()
              .then((b) => {
                weight[u.pathname] = gzipSync(b, { level: 6 }).length;
              })
              .catch(() => undefined),
          );
        }
      });
    }
    await page.goto(`${url}/ui/${pageSize ? `?page=${pageSize}` : ''}`);
    await page.waitForFunction(() => document.body.dataset.cardsPainted !== undefined, null, {
      timeout: 60_000,
    });
    // A string, not a function: tsx would wrap named arrow functions in a helper the page lacks.
    const r = (await page.evaluate(`(() => {
      const m = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      const d = (n) => performance.getEntriesByName(n)[0]?.duration ?? NaN;
      return {
        rendered: Number(document.body.dataset.cardsRendered),
        fetchToCommit: d('mc:cards-render'),
        fetchToPaint: d('mc:cards-paint'),
        navToPaint: m('mc:cards-painted'),
        cardsInDom: document.querySelectorAll('article.card').length,
        domNodes: document.getElementsByTagName('*').length,
      };
    })()`)) as Run;
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => (metrics.find((x) => x.name === name)?.value ?? Number.NaN) * 1000;
    r.mainThreadMs = metric('TaskDuration');
    r.scriptMs = metric('ScriptDuration');
    r.styleLayoutMs = metric('RecalcStyleDuration') + metric('LayoutDuration');
    await Promise.all(bodies);
    // The first run warms the browser's code cache; it is not counted.
    if (i > 0) runs.push(r);
    await context.close();
  }
  return { runs, weight };
}

function summary(label: string, runs: Run[]) {
  const f = (k: keyof Run) => median(runs.map((r) => r[k]));
  console.log(
    `${label}: cards in DOM ${f('cardsInDom')}, DOM nodes ${f('domNodes')}; median of ${runs.length}: ` +
      `data→DOM ${f('fetchToCommit').toFixed(1)} ms, data→painted ${f('fetchToPaint').toFixed(1)} ms, ` +
      `navigation→painted ${f('navToPaint').toFixed(1)} ms ` +
      `(max ${Math.max(...runs.map((r) => r.navToPaint)).toFixed(1)} ms); main-thread busy ${f('mainThreadMs').toFixed(0)} ms ` +
      `(script ${f('scriptMs').toFixed(0)}, style+layout ${f('styleLayoutMs').toFixed(0)})`,
  );
}

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.error(`Chromium not found at ${CHROMIUM}; apt-get install -y chromium`);
    process.exit(2);
  }
  const distDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'mc-ui-bench-')), 'dist');
  const built = await buildWeb({ outDir: distDir });
  console.log(
    `built: ${built.files.map((f) => `${f.name} ${f.bytes} B (${f.gzipBytes} B gzip -9)`).join(', ')}`,
  );
  const browser = await launchChromium();
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${await browser.version()}`,
  );
  const n = Number(values.cards);
  const small = await startFixtureServer({ cards: upcomingCards(n), distDir });
  try {
    const all = await measure(browser, small.url, small.key, n);
    const ui = Object.entries(all.weight).filter(([p]) => p.startsWith('/ui/'));
    const total = ui.reduce((s, [, b]) => s + b, 0);
    console.log(
      `page weight (gzip): ${ui.map(([p, b]) => `${p} ${b} B`).join(', ')} → total ${total} B (${(total / 1024).toFixed(1)} KB)`,
    );
    console.log(`cards JSON for ${n} cards: ${jsonGzip(upcomingCards(n))} B gzipped`);
    summary(`${n} cards, all rendered (?page=${n})`, all.runs);
    const paged = await measure(browser, small.url, small.key, null);
    summary(`${n} cards, default page size`, paged.runs);
  } finally {
    await small.close();
  }
  const bigN = Number(values.big);
  if (bigN > 0) {
    const big = await startFixtureServer({ cards: upcomingCards(bigN), distDir });
    try {
      const r = await measure(browser, big.url, big.key, null);
      console.log(`cards JSON for ${bigN} cards: ${jsonGzip(upcomingCards(bigN))} B gzipped`);
      summary(`${bigN} cards, default page size`, r.runs);
    } finally {
      await big.close();
    }
  }
  await browser.close();
  await rm(path.dirname(distDir), { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
