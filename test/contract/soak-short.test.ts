// Short form of bench/soak.ts for CI: SOAK_SECONDS=15 of the mixed load (precomputed, bulk, cards,
// odds, ROI, live with and without cache) against a spawned `matchcast start`; 0 errors and resident
// memory growth after warm-up under 10 %. The 10-minute run and its figures: docs/benchmarks.md.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';
import { ROOT } from './harness.js';

test('soak (short form): mixed load on matchcast start, 0 errors, RSS growth < 10 %', {
  timeout: 150_000,
}, async () => {
  // Its own process group, so that a timeout ends the spawned `matchcast start` with it.
  const child = spawnGroup(process.execPath, ['--import', 'tsx', 'bench/soak.ts'], {
    cwd: ROOT,
    env: { ...process.env, SOAK_SECONDS: '15', SOAK_WARMUP_SECONDS: '3', SOAK_CONCURRENCY: '4' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  // What the leader leaves behind goes when it exits (spawnGroup).
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 140_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  const line = out.split('\n').find((l) => l.startsWith('{"soak"'));
  assert.ok(line, `no summary line:\n${out.slice(-3000)}`);
  const { soak } = JSON.parse(line) as {
    soak: {
      ok: boolean;
      requests: number;
      errors: number;
      key_in_log_lines: number;
      rss_growth_pct: number;
      by_kind: Record<string, { n: number; cached: number }>;
    };
  };
  console.log(out.slice(out.indexOf('Soak:'), out.indexOf('{"soak"')));
  assert.equal(soak.errors, 0, out.slice(-3000));
  assert.equal(soak.key_in_log_lines, 0, 'the API key in a log line of matchcast start');
  assert.ok(soak.requests > 500, `requests: ${soak.requests}`);
  for (const kind of ['precomputed', 'cards', 'bulk', 'live_hot', 'live_random'])
    assert.ok(soak.by_kind[kind]!.n > 0, kind);
  assert.ok(soak.by_kind.live_hot!.cached > 0, 'live requests served from the cache');
  assert.ok(
    soak.by_kind.live_random!.n > soak.by_kind.live_random!.cached,
    'live requests that missed the cache',
  );
  assert.ok(soak.rss_growth_pct < 10, `RSS growth ${soak.rss_growth_pct.toFixed(2)} %`);
  assert.equal(code, 0);
});
