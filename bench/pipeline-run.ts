// `matchcast pipeline run` on the real data, timed per stage.
// Usage: node --import tsx bench/pipeline-run.ts [data-folder] [--as-of ISO]
// Ingest (into a fresh on-disk PGlite and folder store in a temp dir) is timed apart from the run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config.js';
import { ingestPath } from '../src/ingest/index.js';
import { createLogger } from '../src/logger.js';
import { bootstrapFirstRun, logProgress, openPipelineDeps, runPipeline } from '../src/pipeline/index.js';

const args = process.argv.slice(2);
const asOfIdx = args.indexOf('--as-of');
const asOf = asOfIdx >= 0 ? new Date(args[asOfIdx + 1]) : new Date();
const source = args.find((a, i) => !a.startsWith('--') && i !== asOfIdx + 1) ?? '/work/shared/data/football';

const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-pipeline-'));
const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn' });
const log = createLogger('warn');
const deps = await openPipelineDeps(config, { log, progress: logProgress(log) });
try {
  let t = performance.now();
  const report = await ingestPath(source, deps);
  console.log(`ingest: ${report.inserted} matches in ${((performance.now() - t) / 1000).toFixed(2)} s`);

  t = performance.now();
  const first = await bootstrapFirstRun(deps, asOf);
  console.log(
    `first start (run + sign-off + challenger): ${((performance.now() - t) / 1000).toFixed(2)} s`,
    JSON.stringify(first.run?.seconds),
  );

  t = performance.now();
  const cpu0 = process.cpuUsage();
  const run = await runPipeline(deps, asOf);
  const wall = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // CPU time of this process: on a shared machine it is the better estimate of the idle wall time.
  console.log(
    `pipeline run: ${wall.toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU;`,
    JSON.stringify(run.seconds),
    'skipped',
    run.skipped,
    `load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `features ${run.features.rows} rows; version ${run.train.version.version} log_loss ${run.train.version.metrics.log_loss?.toFixed(4)} ` +
      `(market ${run.train.version.metrics.market_log_loss?.toFixed(4)}); promote: ${run.promote.reason}; ` +
      `backtest ${run.backtest.rows} rows, ${run.backtest.folds} folds, log_loss ${run.backtest.metrics.model_log_loss?.toFixed(4)}; ` +
      `predict ${run.predict?.rows} rows (${run.predict?.champion_rows} champion, ${run.predict?.backtest_rows} backtest, ${run.predict?.omitted} omitted)`,
  );
} finally {
  await deps.close();
  await rm(dir, { recursive: true, force: true });
}
