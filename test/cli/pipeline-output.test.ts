// `matchcast pipeline`: a stand-alone stage that would produce nothing exits 1 with a coded error
// (no draft written when the database is empty); a run's log lines stay short (its ~100 KB result
// goes to the run record and --json); the human output carries each stage's metrics.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { pipelineCommand } from '../../src/cli/pipeline.js';
import { formatStageResult, stageLogFigures } from '../../src/cli/stage-output.js';
import { listRuns } from '../../src/runs/index.js';
import { openTestEnv, runPipelineCli, smallLeague, type TestEnv } from '../pipeline/fixtures.js';

let empty: TestEnv;
let league: TestEnv;
before(async () => {
  [empty, league] = await Promise.all([
    openTestEnv([]),
    // 2 regions × 6 teams × 2 seasons = 120 matches: enough for every stage, goals included.
    openTestEnv(smallLeague({ teams: 6, seasons: 2, seed: 11 })),
  ]);
});
after(async () => {
  await Promise.all([empty?.close(), league?.close()]);
});

test('stand-alone stages against an empty database: exit 1, MC_ERR_VALIDATION, no draft run', async () => {
  for (const stage of ['features', 'backtest', 'goals', 'predict', 'fallback', 'performance']) {
    const r = await runPipelineCli(empty, stage, '--as-of', '2023-09-15');
    assert.equal(r.code, 1, `${stage}: ${r.err}`);
    assert.match(r.err, /the database has no match .*\[MC_ERR_VALIDATION\]/, stage);
    assert.equal(r.out, '', stage);
  }
  assert.deepEqual(await listRuns(empty.deps.db), [], 'no draft run was opened');
  // The full run keeps its own refusal: the rows gate, exit 3.
  assert.equal((await runPipelineCli(empty, 'run', '--as-of', '2023-09-15')).code, 3);
});

test('a backtest window without finished matches produces nothing: exit 1', async () => {
  assert.equal((await runPipelineCli(league, 'features', '--as-of', '2023-09-15')).code, 0);
  const r = await runPipelineCli(
    league,
    'backtest',
    '--as-of',
    '2023-09-15',
    '--from',
    '1990-01-01',
    '--to',
    '1991-01-01',
  );
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /produced nothing: no finished match to backtest .*\[MC_ERR_VALIDATION\]/);
});

test('pipeline run: every log line under 2 KB, the last one with the figures; --json has the whole result', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const log = pino({ level: 'info' }, sink);
  const deps = { ...league.deps, log };
  const code = await pipelineCommand(['run', '--as-of', '2023-09-15'], {
    config: league.config,
    deps,
    out: () => {},
    err: () => {},
  });
  assert.equal(code, 0);
  await new Promise((resolve) => setImmediate(resolve));
  const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
  assert.ok(longest < 2048, `longest log line ${longest} bytes`);
  const done = JSON.parse(lines.findLast((l) => l.includes('pipeline run done'))!);
  assert.equal(typeof done.run_id, 'string');
  assert.equal(typeof done['backtest.model_log_loss'], 'number', 'the backtest metric is in the line');
  assert.equal(done['gates.rows'], 'pass');

  let json = '';
  const full = await pipelineCommand(['run', '--as-of', '2023-09-15', '--json'], {
    config: league.config,
    deps: league.deps,
    out: (t) => {
      json += t;
    },
    err: () => {},
  });
  assert.equal(full, 0);
  const result = JSON.parse(json);
  assert.ok(result.backtest.metrics.model_log_loss > 0);
  assert.ok(json.length > 4 * longest, 'the whole result is much larger than any log line');
});

test('human output: backtest prints its metrics, model and lines', () => {
  const result = {
    rows: 962,
    folds: 7,
    from: '2022-06-01T00:00:00.000Z',
    to: '2024-06-01T00:00:00.000Z',
    refit_days: 90,
    metrics: {
      model_log_loss: 1.06019,
      model_rps: 0.2179,
      model_n: 962,
      open_log_loss: 1.00918,
      open_n: 962,
      close_log_loss: 1.0026,
      close_n: 962,
    },
    horizons: { early: { overall: { log_loss_gap: 0.051 } } },
    backtestRows: new Array(962).fill({}),
  };
  const text = formatStageResult('backtest', result, 2.04);
  assert.match(text, /^pipeline backtest done in 2\.0 s\n/);
  assert.match(text, /\n {2}rows=962 folds=7 from=2022-06-01T00:00:00\.000Z/);
  assert.match(text, /\n {2}model: log_loss=1\.0602 rps=0\.2179 n=962\n/);
  assert.match(text, /\n {2}opening line: log_loss=1\.0092 n=962\n/);
  assert.match(text, /\n {2}closing line: log_loss=1\.0026 n=962\n/);
  assert.match(text, /log-loss gap to the line: early=0\.0510/);
  const figures = stageLogFigures('backtest', result);
  assert.equal(figures['model.log_loss'], 1.0602);
  assert.equal(figures.rows, 962);
});
