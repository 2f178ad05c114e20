// The CLI's terminal output and option parsing: human log lines written above the progress bars
// (never inside one), negative numbers read as option values and refused by the option's range, and
// help that lists each option once, under what it belongs to.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ingestCommand } from '../../src/cli/ingest.js';
import { pipelineCommand } from '../../src/cli/pipeline.js';
import { humanLogLine } from '../../src/cli/terminal.js';
import { intOption, numberOption, parseCliArgs, UsageError } from '../../src/cli/usage-error.js';
import { TerminalOutput } from '../../src/pipeline/progress.js';

test('humanLogLine: level prefix, message, short fields; the noise of a JSON record left out', () => {
  const line = humanLogLine(
    JSON.stringify({
      level: 40,
      time: 1,
      pid: 2,
      hostname: 'vm',
      name: 'matchcast',
      msg: 'scheduled run skipped',
      job: 'j1',
      ratio: 0.123456789,
      err: { type: 'Error', message: 'store down', stack: 'Error: store down\n    at x' },
      list: Array.from({ length: 50 }, (_, i) => i),
    }),
  );
  assert.match(line, /^warning: scheduled run skipped {2}job=j1 ratio=0\.1235 err="store down" list=\[0,1,2/);
  assert.doesNotMatch(line, /hostname|pid=|time=|stack|\n/);
  assert.ok(line.length < 200, line);
  assert.equal(humanLogLine('{"level":30,"msg":"listening"}'), 'listening');
  assert.match(humanLogLine('{"level":50,"msg":"boom"}'), /^error: boom/);
  assert.equal(humanLogLine('not json'), 'not json');
});

class FakeTty extends Writable {
  isTTY = true;
  columns = 100;
  rows = 40;
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
  cursorTo(_x: number, _y?: number, cb?: () => void): boolean {
    cb?.();
    return true;
  }
  moveCursor(_dx: number, _dy: number, cb?: () => void): boolean {
    cb?.();
    return true;
  }
  clearLine(_dir: number, cb?: () => void): boolean {
    cb?.();
    return true;
  }
  clearScreenDown(cb?: () => void): boolean {
    cb?.();
    return true;
  }
  getWindowSize(): [number, number] {
    return [this.columns, this.rows];
  }
}

test('TerminalOutput: a line logged while a bar runs is written whole, on its own line, then the ✓ line', async () => {
  const stream = new FakeTty();
  const terminal = new TerminalOutput(stream as unknown as NodeJS.WriteStream);
  const step = terminal.progress().step('backtest', 'walk-forward', 4);
  step.tick();
  terminal.line('warning: fold 2 has no opening odds  fold=2');
  step.tick(3);
  step.done({ folds: 4, log_loss: 1.0602 });
  terminal.line('after the bars');
  const text = stream.text;
  // The logged line is not cut by a bar redraw: it ends with its newline.
  assert.match(text, /warning: fold 2 has no opening odds {2}fold=2\r?\n/);
  assert.match(text, /✓ backtest\/walk-forward \d+ ms folds=4 log_loss=1\.0602\r?\n/);
  assert.ok(text.endsWith('after the bars\n'), JSON.stringify(text.slice(-80)));
  assert.ok(
    text.indexOf('warning: fold 2') < text.indexOf('✓ backtest/walk-forward'),
    'lines keep their order',
  );
});

test('parseCliArgs reads a negative number as the value of a string option; the range check names it', () => {
  const options = { strings: ['concurrency'], booleans: ['json'], short: { concurrency: 'c' } } as const;
  assert.equal(parseCliArgs(['--concurrency', '-3'], options).values.concurrency, '-3');
  assert.equal(parseCliArgs(['-c', '-3', '--json'], options).values.concurrency, '-3');
  assert.equal(parseCliArgs(['--concurrency', '-.5'], options).values.concurrency, '-.5');
  // A boolean option followed by a negative-looking token is still an error of the parser.
  assert.throws(() => parseCliArgs(['--json', '-3'], options), {
    code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
  });
  assert.throws(() => intOption('concurrency', '-3', 1, 256), {
    name: 'UsageError',
    message: '--concurrency expects an integer 1..256, got "-3"',
  });
  for (const bad of ['1e308', 'Infinity', '-1', '', 'fast'])
    assert.throws(
      () => numberOption('speed', bad, 0, 1_000_000),
      (e: unknown) => e instanceof UsageError,
      bad,
    );
  assert.equal(numberOption('speed', '0.5', 0, 1_000_000), 0.5);
  assert.equal(intOption('port', '0', 0, 65535), 0);
});

async function help(
  command: (argv: string[], io: { out: (t: string) => void }) => Promise<number>,
): Promise<string> {
  let out = '';
  const code = await command(['--help'], {
    out: (t) => {
      out += t;
    },
  });
  assert.equal(code, 0);
  return out;
}

test('help lists each option once, under what it belongs to', async () => {
  for (const [name, text] of [
    ['ingest', await help(ingestCommand)],
    ['pipeline', await help(pipelineCommand)],
  ] as const) {
    const options = [...text.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!);
    assert.ok(options.length > 5, `${name}: ${options.join(' ')}`);
    assert.deepEqual(options, [...new Set(options)], `${name} lists an option twice`);
  }
  const ingest = await help(ingestCommand);
  const fromFiles = ingest.slice(ingest.indexOf('From files:'), ingest.indexOf('Synthetic league:'));
  assert.match(fromFiles, /--force/);
  assert.match(fromFiles, /--encoding/);
  const synthetic = ingest.slice(ingest.indexOf('Synthetic league:'), ingest.indexOf('Both:'));
  assert.doesNotMatch(synthetic, /--force|--encoding|--now/);
  assert.match(synthetic, /--teams <N> +teams per region, 2\.\.40/);
});
