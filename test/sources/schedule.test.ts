// Schedules: the embedded loop polls each source when it is due; in distributed mode one BullMQ job
// scheduler per source, and a source is never polled twice at once across workers.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Queue } from 'bullmq';
import { createLogger } from '../../src/logger.js';
import { bullConnection } from '../../src/queue/bullmq/protocol.js';
import { startSourceScheduler } from '../../src/queue/index.js';
import { pollSource, SourcesRepository, startSourceSchedule } from '../../src/sources/index.js';
import { type IngestEnv, ingestEnv } from '../ingest/helpers.js';
import { footballDataResults, loadSeason, playedBy, sourceServer } from './season.js';

const REDIS_URL = process.env.REDIS_URL;

describe('source schedules', () => {
  let env: IngestEnv;
  let server: Awaited<ReturnType<typeof sourceServer>>;
  before(async () => {
    env = await ingestEnv();
    server = await sourceServer();
    const season = loadSeason('2021-2022');
    server.publish('/E0.csv', {
      body: footballDataResults(playedBy(season, new Date('2021-08-20Z'))),
      delayMs: 400,
    });
  });
  after(async () => {
    await server?.close();
    await env?.cleanup();
  });

  test('embedded: a due source is polled on the lane, then again one period later', async () => {
    const repo = new SourcesRepository(env.db);
    await repo.add({
      name: 'e0',
      url: server.url('/E0.csv'),
      format: 'results-csv',
      everyMs: 10_000,
      options: {},
    });
    const lane: string[] = [];
    let clock = Date.now();
    const schedule = startSourceSchedule({
      deps: { db: env.db, store: env.store },
      run: (name, poll) => {
        lane.push(name);
        return poll();
      },
      now: () => new Date(clock),
      checkMs: 30,
    });
    try {
      const wait = async (n: number) => {
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const s = await repo.get('e0');
          if (lane.length >= n && s?.lastPolledAt) return s;
          await new Promise((r) => setTimeout(r, 30));
        }
        assert.fail(`not polled ${n} time(s)`);
      };
      const first = await wait(1);
      assert.equal(first.lastErrorCode, null);
      assert.equal(first.nextPollAt.getTime(), first.lastPolledAt!.getTime() + 10_000);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(lane.length, 1, 'not polled again before its period');
      clock += 10_000;
      await wait(2);
    } finally {
      await schedule.stop();
      await repo.remove('e0');
    }
  });

  test('distributed: one job scheduler per source; never two polls of a source at once', {
    skip: !REDIS_URL && 'REDIS_URL not set',
    timeout: 30_000,
  }, async () => {
    const repo = new SourcesRepository(env.db);
    await repo.add({
      name: 'e0',
      url: server.url('/E0.csv'),
      format: 'results-csv',
      everyMs: 200,
      options: {},
    });
    const queueName = `sources-test-${randomUUID()}`;
    const log = createLogger('silent');
    const outcomes: string[] = [];
    const sources = async () => (await repo.list()).map((s) => ({ name: s.name, everyMs: s.everyMs }));
    // Each fetch takes 400 ms, twice the period: two workers would overlap without the lease.
    const poll = async (name: string) => {
      const o = await pollSource({ db: env.db, store: env.store }, name, { fetch: { attempts: 1 } });
      outcomes.push(o.status);
    };
    const a = await startSourceScheduler({
      redisUrl: REDIS_URL!,
      queueName,
      sources,
      poll,
      log,
      syncMs: 200,
    });
    const b = await startSourceScheduler({
      redisUrl: REDIS_URL!,
      queueName,
      sources,
      poll,
      log,
      syncMs: 200,
    });
    const queue = new Queue(queueName, { connection: bullConnection(REDIS_URL!), skipVersionCheck: true });
    try {
      const schedulers = await queue.getJobSchedulers();
      assert.deepEqual(
        schedulers.map((s) => s.key),
        ['source:e0'],
      );
      const deadline = Date.now() + 15_000;
      while (outcomes.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(outcomes.length >= 6, `polls happened (${outcomes.join(', ')})`);
      assert.ok(outcomes.includes('busy'), 'a poll while another holds the source skips it');
      assert.equal(server.load.maxInFlight, 1, 'never two fetches of the source at once');
      await repo.remove('e0');
      const gone = Date.now() + 5000;
      while ((await queue.getJobSchedulers()).length > 0 && Date.now() < gone)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal((await queue.getJobSchedulers()).length, 0, 'a removed source loses its scheduler');
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });
});
