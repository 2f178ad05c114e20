// Issue 13 against the distributed mode with real processes: two APIs and two workers (PostgreSQL,
// Redis, s3rver). A `pipeline run` SIGKILLed mid-stage and a run refused by a gate change no served
// byte on either API nor a live answer; a rerun publishes to every process at once; rollback serves
// the earlier bytes again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  CLUSTER_SKIP,
  type Cluster,
  get,
  PG_URL,
  spawnProc,
  startCluster,
  uniqueName,
  waitFor,
  waitForOutput,
} from '../helpers/cluster.js';

const BIN = new URL('../../bin/matchcast.js', import.meta.url).pathname;

describe('safe runs (distributed, real processes)', { skip: CLUSTER_SKIP }, () => {
  let cluster: Cluster;
  let futureId: number;

  /** What every API serves: precomputed bodies and one live answer (through the workers). */
  async function served() {
    return Promise.all(
      cluster.apis.map(async (api) => {
        const [preds, cards, odds, live] = await Promise.all([
          get(api.base, '/predict/predictions/'),
          get(api.base, '/predict/cards/'),
          get(api.base, '/predict/odds/'),
          get(api.base, `/predict/${futureId}`),
        ]);
        assert.equal(preds.status, 200);
        assert.equal(live.status, 200, live.text);
        const { cached: _cached, ...answer } = live.json as Record<string, unknown>;
        return { predictions: preds.text, cards: cards.text, odds: odds.text, live: answer };
      }),
    );
  }

  async function runsJson() {
    const r = await cluster.cli(['runs', 'list', '--json']);
    assert.equal(r.code, 0, r.out);
    return JSON.parse(r.stdout) as { published: string; runs: Array<{ run_id: string; status: string }> };
  }

  before(async () => {
    cluster = await startCluster({ apis: 2, workers: 2 });
    const preds = await get(cluster.apis[0]!.base, '/predict/predictions/');
    const rows = preds.json as Array<{ match_id: number; model_stage: string }>;
    futureId = rows.find((r) => r.model_stage === 'champion')!.match_id;
  });
  after(async () => {
    await cluster?.close();
  });

  test('a run SIGKILLed mid-stage, then a gated run: served bytes identical; rerun publishes; rollback', async () => {
    const before = await served();
    assert.deepEqual(before[0], before[1], 'both APIs serve the same set');
    const published = (await runsJson()).published;

    // 1. SIGKILL while the run is past its features stage (features written under its prefix).
    const proc = spawnProc('pipeline-run', process.execPath, [BIN, 'pipeline', 'run'], {
      ...cluster.env,
      LOG_LEVEL: 'info',
    });
    await waitForOutput(proc, /"msg":"features finished"/, 60_000);
    await proc.stop('SIGKILL', 1000);
    await new Promise((r) => setTimeout(r, 1500)); // > VIEW_REFRESH_MS (500) and the worker's check
    assert.deepEqual(await served(), before, 'a killed run changes no served byte');
    assert.equal((await runsJson()).published, published);

    // 2. A stand-alone features stage against an empty database: a draft the rows gate refuses.
    const schema = uniqueName('empty');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const url = new URL(cluster.env.DATABASE_URL!);
      url.searchParams.set('options', `-csearch_path=${schema}`);
      const feat = await cluster.cli(['pipeline', 'features', '--json'], { DATABASE_URL: url.toString() });
      assert.equal(feat.code, 0, feat.out);
      const draft = /draft run (\S+)/.exec(feat.out)?.[1];
      assert.ok(draft, feat.out);
      // The draft's record is a row of the database it was built against.
      const pub = await cluster.cli(['runs', 'publish', draft], { DATABASE_URL: url.toString() });
      assert.equal(pub.code, 3, pub.out);
      assert.match(pub.out, /rows: .*no rows/);
      assert.match(pub.out, /MC_ERR_GATE_FAILED/);
      const shown = await cluster.cli(['runs', 'show', draft, '--json'], { DATABASE_URL: url.toString() });
      assert.equal(JSON.parse(shown.stdout).status, 'rejected', 'the gated draft is rejected');
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    }
    assert.deepEqual(await served(), before, 'a gated run changes no served byte');

    // 3. Rerun: the killed run is marked failed, the new one publishes to both APIs and both workers.
    const rerun = await cluster.cli(['pipeline', 'run', '--json'], {}, 120_000);
    assert.equal(rerun.code, 0, rerun.out.slice(-3000));
    const newRun = JSON.parse(rerun.stdout).run_id as string;
    const runs = await runsJson();
    assert.equal(runs.published, newRun);
    assert.ok(
      runs.runs.some((r) => r.status === 'failed'),
      'the killed run is marked failed',
    );
    const after = await waitFor(
      'every API on the new run',
      async () => {
        const s = await served();
        return s.every((x) => x.predictions !== before[0]!.predictions) &&
          s[0]!.predictions === s[1]!.predictions
          ? s
          : undefined;
      },
      20_000,
      250,
    );
    assert.deepEqual(after[0]!.cards, after[1]!.cards);

    // 4. Rollback: one CAS back; both APIs serve the earlier bytes again.
    const back = await cluster.cli(['runs', 'rollback', published, '--reason', 'test']);
    assert.equal(back.code, 0, back.out);
    const rolled = await waitFor(
      'every API back on the first run',
      async () => {
        const s = await served();
        return s.every((x) => x.predictions === before[0]!.predictions) ? s : undefined;
      },
      20_000,
      250,
    );
    assert.deepEqual(rolled, before);
    const history = await cluster.cli(['runs', 'history', '--json']);
    const events = JSON.parse(history.stdout) as Array<{ action: string; to_run: string }>;
    assert.deepEqual(events.at(-1), { ...events.at(-1), action: 'rollback', to_run: published });
  });
});
