import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ingestCommand } from '../../src/cli/ingest.js';
import { testConfig } from '../db/helpers.js';
import { FIXTURES } from './helpers.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

describe('matchcast ingest', () => {
  // Embedded mode: PGlite on disk under DATA_DIR/db, folder store under DATA_DIR/objects.
  const config = testConfig({ env: { LOG_LEVEL: 'silent' } });
  after(() => rmSync(config.dataDir, { recursive: true, force: true }));

  test('--source loads a file, lists the skipped rows and exits 0; a second run reports 0 inserted/updated', async () => {
    const file = path.join(FIXTURES, 'football-broken.csv');
    const first = capture();
    assert.equal(await ingestCommand(['--source', file], { ...first.io, config }), 0);
    const text = first.out.join('');
    assert.match(text, /15 row\(s\) read → 8 inserted, 0 updated, 0 unchanged, 7 skipped/);
    assert.match(text, /football-broken\.csv:14 1x2 closing: draw_close is not a decimal odd/);
    assert.match(text, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6 FTHG`));

    const second = capture();
    assert.equal(await ingestCommand(['--source', file, '--json'], { ...second.io, config }), 0);
    const report = JSON.parse(second.out.join(''));
    assert.deepEqual([report.inserted, report.updated, report.unchanged], [0, 0, 8]);
    assert.equal(report.skipped.length, 7);
  });

  test('exit codes: 1 when nothing could be read, 2 on bad usage', async () => {
    const missing = capture();
    assert.equal(
      await ingestCommand(['--source', path.join(config.dataDir, 'nope')], { ...missing.io, config }),
      1,
    );
    assert.match(missing.err.join(''), /MC_ERR_NOT_FOUND/);
    for (const argv of [
      [],
      ['--source', 'x', '--synthetic'],
      ['--synthetic', '--seed', 'abc'],
      ['--bogus'],
      ['--source', 'x', '--encoding', 'utf-16'],
      ['--synthetic', '--force'],
    ]) {
      const c = capture();
      assert.equal(await ingestCommand(argv, { ...c.io, config }), 2, argv.join(' '));
    }
  });
});
