// /healthcheck/ lists the freshness of the sources this process polls (additive; status unchanged).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { pollSource, SourcesRepository } from '../../src/sources/index.js';
import { embeddedApp } from '../helpers/app-context.js';
import { loadSeason, playedBy, sharedCsv } from './season.js';

interface HealthSources {
  status: string;
  sources?: { name: string; last_success_at: string | null; period_seconds: number; fresh: boolean }[];
}

test('/healthcheck/ shows each polled source: fresh within twice its period, stale after', async () => {
  const { app, ctx } = await embeddedApp();
  try {
    const plain = (await app.inject({ url: '/healthcheck/' })).json() as HealthSources;
    assert.equal('sources' in plain, false, 'no field before any poll');
    const file = path.join(ctx.config.dataDir, 'england.csv');
    await writeFile(file, sharedCsv(playedBy(loadSeason('2021-2022'), new Date('2021-08-20Z'))));
    const repo = new SourcesRepository(ctx.db);
    await repo.add({ name: 'fresh', url: file, format: 'results-csv', everyMs: 3_600_000, options: {} });
    await repo.add({
      name: 'stale',
      url: `${file}.gone`,
      format: 'results-csv',
      everyMs: 3_600_000,
      options: {},
    });
    const now = Date.now();
    assert.equal(
      (await pollSource({ db: ctx.db, store: ctx.store }, 'fresh', { now: new Date(now - 3_600_000) }))
        .status,
      'ok',
    );
    // Its last success 3 h ago on an hourly source, then a failing poll: stale.
    await ctx.db.query("UPDATE sources SET last_success_at = $1 WHERE name = 'stale'", [
      new Date(now - 3 * 3_600_000),
    ]);
    assert.equal(
      (await pollSource({ db: ctx.db, store: ctx.store }, 'stale', { now: new Date(now) })).status,
      'failed',
    );
    const res = (await app.inject({ url: '/healthcheck/' })).json() as HealthSources;
    assert.deepEqual(
      res.sources?.map((s) => [s.name, s.fresh, s.period_seconds]),
      [
        ['fresh', true, 3600],
        ['stale', false, 3600],
      ],
    );
    assert.equal(res.sources?.[1].last_success_at, new Date(now - 3 * 3_600_000).toISOString());
  } finally {
    await app.close();
  }
});

test('/metrics reads the source gauges from the sources table, whichever process polled', async () => {
  const { app, ctx } = await embeddedApp();
  try {
    const repo = new SourcesRepository(ctx.db);
    await repo.add({
      name: 'elsewhere',
      url: '/nowhere.csv',
      format: 'results-csv',
      everyMs: 900_000,
      options: {},
    });
    const at = new Date('2026-01-02T03:04:05Z');
    await ctx.db.query("UPDATE sources SET last_success_at = $1 WHERE name = 'elsewhere'", [at]);
    const text = (await app.inject({ url: '/metrics' })).body;
    assert.match(
      text,
      new RegExp(
        `^matchcast_source_last_success_timestamp_seconds\\{source="elsewhere"\\} ${at.getTime() / 1000}$`,
        'm',
      ),
    );
    assert.match(text, /^matchcast_source_period_seconds\{source="elsewhere"\} 900$/m);
  } finally {
    await app.close();
  }
});
