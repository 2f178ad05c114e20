/**
 * Soak test: a mixed load against a real `matchcast start` process for SOAK_SECONDS,
 * with 0 errors allowed and the API process's resident memory (VmRSS, which includes the embedded
 * worker threads) sampled: growth after warm-up must stay under 10 %.
 *
 *   node --import tsx bench/soak.ts                       # 10 minutes (600 s), 60 s warm-up
 *   SOAK_SECONDS=20 node --import tsx bench/soak.ts       # short form (CI: test/contract/soak-short.test.ts)
 *
 * Settings (environment): SOAK_SECONDS (600), SOAK_WARMUP_SECONDS (min(60, 20 % of the run)),
 * SOAK_CONCURRENCY (4 clients), SOAK_SAMPLE_MS (2000), SOAK_MAX_GROWTH_PCT (10), SOAK_DATA_DIR (a
 * prepared DATA_DIR to reuse; default a fresh temp dir bootstrapped like a first start).
 *
 * The mix (weights): precomputed single 35, cards 10, bulk predictions 5, odds 5, region ROI 5,
 * live on a hot set of 8 matches (cache hits) 20, live on a random match (mostly cache misses:
 * PREDICTION_CACHE_TTL=1 on the server) 20. Prints a Markdown table and one JSON line; exits 1 when
 * any request failed or memory grew too much.
 */
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { newApiKey, prepareDataDir, spawnMatchcast } from '../test/contract/harness.js';

const num = (name: string, dflt: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? dflt : Number(v);
};
const SECONDS = num('SOAK_SECONDS', 600);
const WARMUP = num('SOAK_WARMUP_SECONDS', Math.min(60, Math.round(SECONDS * 0.2)));
const CONCURRENCY = num('SOAK_CONCURRENCY', 4);
const SAMPLE_MS = num('SOAK_SAMPLE_MS', 2000);
const MAX_GROWTH = num('SOAK_MAX_GROWTH_PCT', 10);
const REQUEST_TIMEOUT_MS = 35_000;

type Kind = 'precomputed' | 'cards' | 'bulk' | 'odds' | 'roi' | 'live_hot' | 'live_random';
const MIX: Array<[Kind, number]> = [
  ['precomputed', 35],
  ['cards', 10],
  ['bulk', 5],
  ['odds', 5],
  ['roi', 5],
  ['live_hot', 20],
  ['live_random', 20],
];

interface KindStats {
  n: number;
  errors: number;
  ms: number[];
  cached: number;
}

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!m) throw new Error('no VmRSS');
  return Number(m[1]);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : Number.NaN;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]! : Number.NaN;
};

function pick(r: number): Kind {
  const total = MIX.reduce((a, [, w]) => a + w, 0);
  let x = r * total;
  for (const [k, w] of MIX) {
    x -= w;
    if (x < 0) return k;
  }
  return 'precomputed';
}

async function main(): Promise<number> {
  const started = Date.now();
  const ownDir = !process.env.SOAK_DATA_DIR;
  const dataDir = await prepareDataDir(process.env.SOAK_DATA_DIR);
  const apiKey = newApiKey();
  const server = await spawnMatchcast('start', {
    DATA_DIR: dataDir,
    API_KEY: apiKey,
    PREDICTION_CACHE_TTL: '1',
    LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'info',
  });
  const pid = server.child.pid!;
  const setupSeconds = (Date.now() - started) / 1000;
  const headers = { 'x-api-key': apiKey };
  const errors: string[] = [];
  const stats = new Map<Kind, KindStats>(MIX.map(([k]) => [k, { n: 0, errors: 0, ms: [], cached: 0 }]));
  const samples: Array<{ t: number; kb: number }> = [];
  try {
    // Listening is not serving: the load starts once the service reports ready (bounded).
    for (let i = 0; i < 600; i++) {
      const ready = await fetch(`${server.url}/readyz`).catch(() => null);
      if (ready?.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const listed = await fetch(`${server.url}/predict/predictions/`, { headers });
    const predictions = (await listed.json()) as Array<{ match_id: number; is_future: boolean }>;
    if (!Array.isArray(predictions))
      throw new Error(`/predict/predictions/ answered ${listed.status}: ${JSON.stringify(predictions)}`);
    const ids = predictions.map((p) => p.match_id);
    const hot = predictions
      .filter((p) => p.is_future)
      .slice(0, 8)
      .map((p) => p.match_id);

    const path = (kind: Kind): string => {
      switch (kind) {
        case 'precomputed':
          return `/predict/precomputed/${ids[Math.floor(Math.random() * ids.length)]}`;
        case 'cards':
          return '/predict/cards/';
        case 'bulk':
          return '/predict/predictions/';
        case 'odds':
          return '/predict/odds/';
        case 'roi':
          return '/predict/region-roi/';
        case 'live_hot':
          return `/predict/${hot[Math.floor(Math.random() * hot.length)]}`;
        case 'live_random':
          return `/predict/${ids[Math.floor(Math.random() * ids.length)]}`;
      }
    };

    const loadStart = Date.now();
    const endAt = loadStart + SECONDS * 1000;
    const sampler = (async () => {
      while (Date.now() < endAt) {
        samples.push({ t: (Date.now() - loadStart) / 1000, kb: await rssKb(pid) });
        await new Promise((r) => setTimeout(r, SAMPLE_MS));
      }
      samples.push({ t: (Date.now() - loadStart) / 1000, kb: await rssKb(pid) });
    })();
    const client = async () => {
      while (Date.now() < endAt) {
        const kind = pick(Math.random());
        const s = stats.get(kind)!;
        const url = path(kind);
        const t0 = performance.now();
        try {
          const res = await fetch(`${server.url}${url}`, {
            headers,
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const body = await res.arrayBuffer();
          s.ms.push(performance.now() - t0);
          s.n++;
          if (res.status !== 200) {
            s.errors++;
            errors.push(`${res.status} ${url} ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
          } else if (kind.startsWith('live')) {
            const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as { cached?: boolean };
            if (parsed.cached) s.cached++;
          }
        } catch (err) {
          s.n++;
          s.errors++;
          errors.push(`${url} ${(err as Error).message}`);
        }
      }
    };
    await Promise.all([...Array.from({ length: CONCURRENCY }, client), sampler]);
    const loadSeconds = (Date.now() - loadStart) / 1000;

    // Baseline: the samples of the 20 s after warm-up; final: the last 20 s.
    const window = Math.min(20, Math.max(4, (SECONDS - WARMUP) / 4));
    const base = samples.filter((s) => s.t >= WARMUP && s.t < WARMUP + window).map((s) => s.kb);
    const last = samples.filter((s) => s.t >= loadSeconds - window).map((s) => s.kb);
    const baseKb = median(base);
    const lastKb = median(last);
    const growthPct = ((lastKb - baseKb) / baseKb) * 100;
    const total = [...stats.values()].reduce((a, s) => a + s.n, 0);
    const totalErrors = [...stats.values()].reduce((a, s) => a + s.errors, 0);

    console.log(
      `\nSoak: ${loadSeconds.toFixed(0)} s load, ${CONCURRENCY} clients, warm-up ${WARMUP} s (setup ${setupSeconds.toFixed(0)} s), ${os.cpus().length} CPUs, Node ${process.version}\n`,
    );
    console.log('| route mix | requests | errors | p50 ms | p95 ms | p99 ms | cache hits |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const [kind, s] of stats) {
      console.log(
        `| ${kind} | ${s.n} | ${s.errors} | ${pct(s.ms, 50).toFixed(1)} | ${pct(s.ms, 95).toFixed(1)} | ${pct(s.ms, 99).toFixed(1)} | ${kind.startsWith('live') ? s.cached : '–'} |`,
      );
    }
    console.log(
      `| **total** | ${total} (${(total / loadSeconds).toFixed(1)}/s) | ${totalErrors} | | | | |\n`,
    );
    const kbs = samples.map((s) => s.kb);
    console.log(
      `RSS (API process incl. worker threads): start ${(kbs[0]! / 1024).toFixed(1)} MB, after warm-up ${(baseKb / 1024).toFixed(1)} MB, end ${(lastKb / 1024).toFixed(1)} MB, peak ${(Math.max(...kbs) / 1024).toFixed(1)} MB; growth after warm-up ${growthPct.toFixed(2)} % (bound ${MAX_GROWTH} %)`,
    );
    for (const e of errors.slice(0, 10)) console.log(`error: ${e}`);
    // The banner of `start` prints the key by design; no JSON log line of the server may carry it.
    const logLines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const keyInLogs = logLines.filter((l) => l.includes(apiKey)).length;
    console.log(
      `log lines checked for the API key: ${logLines.length} (tail of the output), containing it: ${keyInLogs}`,
    );
    const ok = totalErrors === 0 && growthPct < MAX_GROWTH && total > 0 && keyInLogs === 0;
    console.log(
      JSON.stringify({
        soak: {
          ok,
          seconds: loadSeconds,
          warmup_seconds: WARMUP,
          concurrency: CONCURRENCY,
          requests: total,
          errors: totalErrors,
          key_in_log_lines: keyInLogs,
          rps: total / loadSeconds,
          rss_start_kb: kbs[0],
          rss_base_kb: baseKb,
          rss_end_kb: lastKb,
          rss_peak_kb: Math.max(...kbs),
          rss_growth_pct: growthPct,
          by_kind: Object.fromEntries(
            [...stats].map(([k, s]) => [
              k,
              {
                n: s.n,
                errors: s.errors,
                p50: pct(s.ms, 50),
                p95: pct(s.ms, 95),
                p99: pct(s.ms, 99),
                cached: s.cached,
              },
            ]),
          ),
          samples: samples.length,
        },
      }),
    );
    return ok ? 0 : 1;
  } finally {
    await server.stop();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
