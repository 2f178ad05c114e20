import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BACKGROUND_NICE } from '../../src/cli/batch-process.js';
import { createWorkChild } from '../../src/cli/work-child.js';
import { parseConfig } from '../../src/config.js';
import { MatchesRepository } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { openRuntime } from '../../src/runtime.js';
import { SourcesRepository } from '../../src/sources/index.js';
import { loadSeason, SHARED_HEADER } from '../sources/season.js';

test('source polls run in the work child: rows land in the server database; a killed child is replaced', {
  timeout: 120_000,
}, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mc-work-child-'));
  // The parent's settings reach the child over its channel: the environment's are not used.
  const config = parseConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
  const log = createLogger('silent');
  const ctx = await openRuntime(config, log, { role: 'embedded' });
  const work = createWorkChild(config, log, { stopGraceMs: 2000 });
  try {
    const season = loadSeason('2021-2022');
    const file = path.join(dataDir, 'england.csv');
    await writeFile(
      file,
      `${SHARED_HEADER}\n${season
        .slice(0, 10)
        .map((r) => r.raw)
        .join('\n')}\n`,
    );
    await new SourcesRepository(ctx.db).add({
      name: 'eng',
      url: file,
      format: 'results-csv',
      everyMs: 3_600_000,
      options: { acceptNewTeams: true },
    });
    const matches = new MatchesRepository(ctx.db);

    const first = await work.poll({ name: 'eng', now: '2022-06-01T00:00:00Z' });
    assert.equal(first.outcome.status, 'ok', first.outcome.message ?? '');
    assert.equal(await matches.count(), 10, "the child's rows are in the server's database");
    const pid = work.pid();
    assert.ok(pid && pid !== process.pid, 'the poll ran in another process');
    assert.equal(getPriority(pid), BACKGROUND_NICE, 'background work yields the CPU to serving');

    // kill -9 of the child: the next poll starts another and goes on where the data is.
    process.kill(pid, 'SIGKILL');
    while (work.pid() !== undefined) await new Promise((r) => setTimeout(r, 20));
    await writeFile(
      file,
      `${SHARED_HEADER}\n${season
        .slice(0, 20)
        .map((r) => r.raw)
        .join('\n')}\n`,
    );
    const second = await work.poll({ name: 'eng', now: '2022-06-01T01:00:00Z' });
    assert.equal(second.outcome.status, 'ok', second.outcome.message ?? '');
    assert.equal(await matches.count(), 20);
    assert.notEqual(work.pid(), pid);

    await assert.rejects(work.poll({ name: 'no-such-source' }), /no source named/);
  } finally {
    await work.close();
    assert.equal(work.pid(), undefined, 'closed: no child left');
    await ctx.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
