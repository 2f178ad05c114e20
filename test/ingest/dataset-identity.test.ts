import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MatchesRepository } from '../../src/db/index.js';
import { isMatchcastError } from '../../src/domain/index.js';
import { ingestPath, ingestSynthetic } from '../../src/ingest/index.js';
import { ingestEnv } from './helpers.js';

const HEADER =
  'Date,country,league,Season,HomeTeam,AwayTeam,FTHG,FTAG,home_close,home_open,draw_close,draw_open,away_close,away_open';

function csv(dir: string, name: string, rows: string[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${HEADER}\n${rows.join('\n')}\n`);
  return file;
}

test('the synthetic league is never mixed into real data: refused, nothing changed', async () => {
  const env = await ingestEnv();
  try {
    const real = csv(env.config.dataDir, 'real.csv', [
      '2021-08-14 15:00:00,england,premier-league,2021-2022,Arsenal,Chelsea,1,2,2.5,2.4,3.3,3.4,2.9,3.0',
    ]);
    await ingestPath(real, env);
    const before = await new MatchesRepository(env.db).count();
    await assert.rejects(
      ingestSynthetic({ regions: 1, seasons: 1, now: new Date('2024-01-01Z') }, env),
      (e) => isMatchcastError(e, 'MC_ERR_DATASET_MISMATCH'),
    );
    assert.equal(await new MatchesRepository(env.db).count(), before, 'nothing of the league was stored');
    // More real files are the same data set.
    await ingestPath(
      csv(env.config.dataDir, 'more.csv', [
        '2021-08-21 15:00:00,england,premier-league,2021-2022,Chelsea,Arsenal,0,0,2.5,2.4,3.3,3.4,2.9,3.0',
      ]),
      env,
    );
    assert.equal(await new MatchesRepository(env.db).count(), before + 1);
  } finally {
    await env.cleanup();
  }
});

test('real match files are never mixed into the synthetic league', async () => {
  const env = await ingestEnv();
  try {
    await ingestSynthetic({ regions: 1, seasons: 1, now: new Date('2024-01-01Z') }, env);
    const before = await new MatchesRepository(env.db).count();
    const real = csv(env.config.dataDir, 'real.csv', [
      '2021-08-14 15:00:00,england,premier-league,2021-2022,Arsenal,Chelsea,1,2,2.5,2.4,3.3,3.4,2.9,3.0',
    ]);
    await assert.rejects(ingestPath(real, env), (e) => isMatchcastError(e, 'MC_ERR_DATASET_MISMATCH'));
    assert.equal(await new MatchesRepository(env.db).count(), before);
    // The same league again is the same data set (idempotent).
    await ingestSynthetic({ regions: 1, seasons: 1, now: new Date('2024-01-01Z') }, env);
  } finally {
    await env.cleanup();
  }
});
