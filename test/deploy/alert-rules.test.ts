// The alert rules in deploy/prometheus/: promtool checks them and runs their unit tests; then the
// edge alert is driven by the gauges our own code exports — served probabilities that beat the
// opening line do not fire it, serving the opening line itself (edge removed) does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type JoinedMatch, performanceGroups } from '../../src/analytics/performance.js';
import { setPerformanceGauges } from '../../src/api/routes/monitoring-performance.js';
import { registry } from '../../src/metrics.js';
import { EXAMPLE_PERFORMANCE } from '../../src/schemas/index.js';

const exec = promisify(execFile);
const dir = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const skip = promtool ? false : 'promtool not installed (apt-get install -y prometheus): rules not checked';

async function promtoolRun(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await exec(promtool as string, args, { cwd });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    assert.fail(`promtool ${args.join(' ')} failed:\n${e.stdout}\n${e.stderr}`);
  }
}

test('promtool check rules: the alert rules file is valid', { skip }, async () => {
  const out = await promtoolRun(['check', 'rules', 'alerts.yml'], dir);
  assert.match(out, /SUCCESS: 5 rules found/);
});

test('promtool test rules: every alert fires when its condition holds, not before', { skip }, async () => {
  const out = await promtoolRun(['test', 'rules', 'alerts.test.yml'], dir);
  assert.match(out, /SUCCESS/);
});

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 300 matches: outcomes drawn from the true probabilities; the opening line is a noisy copy. */
function season(): { truth: JoinedMatch[]; line: JoinedMatch[] } {
  const r = rng(5);
  const truth: JoinedMatch[] = [];
  const line: JoinedMatch[] = [];
  for (let i = 0; i < 300; i++) {
    const h = 0.25 + 0.4 * r();
    const d = 0.22 + 0.08 * r();
    const p: [number, number, number] = [h, d, 1 - h - d];
    const u = r();
    const label = (u < p[0] ? 0 : u < p[0] + p[1] ? 1 : 2) as 0 | 1 | 2;
    const noisy = p.map((x) => x * Math.exp(0.5 * (r() - 0.5)));
    const s = noisy[0] + noisy[1] + noisy[2];
    const open = noisy.map((x) => x / s) as [number, number, number];
    const base = {
      match_id: i + 1,
      region_id: 1,
      region_name: 'A',
      start_time_utc: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000),
      label,
      opening: open,
      closing: open,
    };
    truth.push({ ...base, proba: p });
    line.push({ ...base, proba: open });
  }
  return { truth, line };
}

async function edgeGauge(rows: JoinedMatch[]): Promise<{ edge: number; n: number }> {
  const asOf = new Date(Date.UTC(2025, 0, 1));
  setPerformanceGauges({
    ...EXAMPLE_PERFORMANCE,
    groups: performanceGroups(rows, { matches: 300, days: 0 }, asOf),
  });
  const text = await registry.metrics();
  const value = (re: RegExp) => Number(text.match(re)?.[1]);
  return {
    edge: value(/^matchcast_realised_edge_log_loss\{region="A",line="opening"\} (\S+)$/m),
    n: value(/^matchcast_realised_matches\{region="A"\} (\S+)$/m),
  };
}

test('the edge alert fires on our gauges when the edge over the opening line is removed', {
  skip,
}, async () => {
  const { truth, line } = season();
  const withEdge = await edgeGauge(truth);
  const removed = await edgeGauge(line);
  assert.ok(withEdge.edge > 0, `the true probabilities beat the noisy line (${withEdge.edge})`);
  assert.equal(removed.edge, 0, 'serving the line itself leaves no edge');
  assert.equal(removed.n, 300);
  const tmp = await mkdtemp(path.join(tmpdir(), 'mc-alerts-'));
  try {
    await copyFile(path.join(dir, 'alerts.yml'), path.join(tmp, 'alerts.yml'));
    // One hour with the edge, then two with the figures of the edge-removed run.
    const spec = `rule_files: [alerts.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'matchcast_realised_edge_log_loss{region="A",line="opening"}'
        values: '${withEdge.edge}x59 ${removed.edge}x120'
      - series: 'matchcast_realised_matches{region="A"}'
        values: '${removed.n}x180'
    alert_rule_test:
      - eval_time: 59m
        alertname: MatchcastEdgeOverOpeningLineGone
        exp_alerts: []
      - eval_time: 120m
        alertname: MatchcastEdgeOverOpeningLineGone
        exp_alerts:
          - exp_labels: { severity: warning, region: A, line: opening }
            exp_annotations:
              summary: Realised edge over the opening line is gone in A
              description: "Over the last 300 finished served matches of A, the served probabilities' log loss is not below the opening line's (edge 0.0000). See GET /monitoring/performance."
`;
    await writeFile(path.join(tmp, 'edge.test.yml'), spec);
    const out = await promtoolRun(['test', 'rules', 'edge.test.yml'], tmp);
    assert.match(out, /SUCCESS/);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
