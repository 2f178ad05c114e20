import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPLAY_SOURCE, type ReplayState, replayCommand, replayOptions } from '../../src/cli/replay.js';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { readPublished } from '../../src/runs/index.js';
import { SourcesRepository } from '../../src/sources/index.js';

/** Three seasons (2020–2023) of one real league. */
const DATA = new URL('../fixtures/football/england.csv', import.meta.url);
const KEY = 'replay-e2e-key-0123456789abcdef';

interface Card {
  match_id: number;
  start_time_utc: string;
  status: string;
  is_future: boolean;
  proba_home: number;
  odd_home: number | null;
  odds_observed_at: string | null;
  home_score: number | null;
}

/**
 * The whole loop on real data, speeded up: three seasons of one league replayed from 2022-09-01 at
 * ~10 simulated hours per wall second. The feed releases fixtures, opening odds (kick-off − 48 h),
 * closing odds and results; each release is ingested, the touched matches are re-predicted and
 * published as a new run, and the server serves it without a restart.
 */
test('replay on real data: fixtures get odds and results as the clock moves', {
  timeout: 300_000,
}, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-replay-'));
  await mkdir(path.join(dir, 'data'));
  await copyFile(DATA, path.join(dir, 'data', 'england.csv'));
  const config = {
    ...parseConfig({
      DATA_DIR: path.join(dir, 'var'),
      PORT: '0',
      HOST: '127.0.0.1',
      API_KEY: KEY,
      LOG_LEVEL: 'silent',
      VIEW_REFRESH_MS: '200',
    }),
  };
  let stop!: () => void;
  const until = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let state: ReplayState | undefined;
  const serving = replayCommand(config, createLogger('silent'), {
    ...replayOptions({ data: path.join(dir, 'data'), asOf: '2022-09-01', speed: String(10 * 3600) }),
    tickMs: 250,
    until,
    onServing: (s) => {
      state = s;
    },
  });
  try {
    const deadline = Date.now() + 150_000;
    while (!state && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(state, 'replay serving');
    const { ctx } = state;
    const app = await import('../../src/api/index.js').then((m) => m.buildApp(ctx));
    const get = async <T>(url: string): Promise<T> => {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': KEY } });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json() as T;
    };
    await ctx.views.refresh();
    const firstRun = (await readPublished(ctx.db))?.run_id;
    const before = new Map((await get<Card[]>('/predict/cards/')).map((c) => [c.match_id, c]));
    const upcoming = [...before.values()].filter((c) => c.is_future);
    assert.ok(upcoming.length > 0, 'real upcoming fixtures are served');
    assert.ok(
      upcoming.some((c) => c.odd_home === null),
      'a fixture beyond 48 h has no odds yet',
    );
    const live = await get<{ status: string; startTimeUtc: string }[]>('/livescores/');
    assert.ok(
      live.some((m) => m.status === 'scheduled' && m.startTimeUtc > '2022-09-01'),
      '/livescores/ lists upcoming fixtures by default (year of the replay clock)',
    );

    // Let the clock run ~3 simulated days (≈ 7 s), then look again.
    while (state.ticks() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await new Promise((r) => setTimeout(r, 7000));
    await state.jobs.idle();
    await ctx.views.refresh();
    const published = await readPublished(ctx.db);
    assert.notEqual(published?.run_id, firstRun, 'incremental runs were published while serving');
    const after = new Map((await get<Card[]>('/predict/cards/')).map((c) => [c.match_id, c]));
    const gotOdds = upcoming.filter((c) => c.odd_home === null && after.get(c.match_id)?.odd_home != null);
    assert.ok(gotOdds.length > 0, 'fixtures received their opening odds');
    assert.ok(
      gotOdds.some((c) => after.get(c.match_id)!.proba_home !== c.proba_home),
      'their probabilities moved with the odds',
    );
    const finished = upcoming.filter((c) => after.get(c.match_id)?.status === 'finished');
    assert.ok(finished.length > 0, 'results arrived after full time');
    // The releases came through the source path: the feed is the `replay` source of the replay's database.
    const source = await new SourcesRepository(ctx.db).get(REPLAY_SOURCE);
    assert.ok(source?.lastSuccessAt && source.rowsAddedTotal > 0, 'releases polled as a source');
    assert.ok(source.lastErrorCode !== 'MC_ERR_SOURCE_UNKNOWN_TEAMS', 'no released row held back');
  } finally {
    stop();
    try {
      assert.equal(await serving, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});
