// Realised performance on the real data, replayed week by week: first start at --from, then one
// `pipeline run` per week (results released by the as-of clock); prints the realised figures of what was
// served against the opening and closing lines, per region, after each run and at the end.
// Usage: node --import tsx bench/performance-replay.ts [--from 2022-08-01] [--weeks 8] [data-folder]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PerformanceSummary } from '../src/analytics/performance-stage.js';
import { parseConfig } from '../src/config.js';
import { ingestPath } from '../src/ingest/index.js';
import { createLogger } from '../src/logger.js';
import { bootstrapFirstRun, openPipelineDeps, runPipeline } from '../src/pipeline/index.js';
import { silentProgress } from '../src/pipeline/progress.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const from = new Date(`${opt('--from', '2022-08-01')}T00:00:00Z`);
const weeks = Number(opt('--weeks', '8'));
const source =
  args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '/work/shared/data/football';

const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-perf-'));
const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn', PERFORMANCE_WINDOW_MATCHES: '0' });
const log = createLogger('warn');
const deps = await openPipelineDeps(config, { log, progress: silentProgress });
const f = (x: number | null | undefined, d = 4) => (x === null || x === undefined ? '–' : x.toFixed(d));
try {
  const report = await ingestPath(source, deps);
  console.log(`ingest: ${report.inserted} matches`);
  let t = performance.now();
  await bootstrapFirstRun(deps, from);
  console.log(
    `first start at ${from.toISOString().slice(0, 10)}: ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  let last: PerformanceSummary | null = null;
  for (let w = 1; w <= weeks; w++) {
    const asOf = new Date(from.getTime() + w * 7 * 86_400_000);
    t = performance.now();
    const run = await runPipeline(deps, asOf);
    last = run.performance as PerformanceSummary;
    const all = last.groups[0];
    console.log(
      `${asOf.toISOString().slice(0, 10)} run ${((performance.now() - t) / 1000).toFixed(1)} s (performance ${run.seconds.performance} s): ` +
        `n ${all.n}, log loss ${f(all.log_loss)}, opening ${f(all.opening.line_log_loss)} (edge ${f(all.opening.edge_log_loss)}), ` +
        `closing ${f(all.closing.line_log_loss)} (edge ${f(all.closing.edge_log_loss)}), promote: ${run.promote.promoted ? 'candidate' : 'none'}`,
    );
  }
  if (last) {
    console.log('\nregion | n | log loss | RPS | opening | edge | closing | edge | calibration error');
    for (const g of last.groups) {
      console.log(
        `${g.region_name} | ${g.n} | ${f(g.log_loss)} | ${f(g.rps)} | ${f(g.opening.line_log_loss)} | ${f(g.opening.edge_log_loss)} | ` +
          `${f(g.closing.line_log_loss)} | ${f(g.closing.edge_log_loss)} | ${f(g.calibration_error, 3)}`,
      );
    }
    console.log(
      `backtest rows kept apart: ${last.backtest?.n ?? 0}; unserved finished: ${last.n_unserved_finished}`,
    );
  }
} finally {
  await deps.close();
  await rm(dir, { recursive: true, force: true });
}
