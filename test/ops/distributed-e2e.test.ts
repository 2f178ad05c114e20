// Distributed end to end: PostgreSQL (own schema), Redis (own queue), s3rver, the CLI
// pipeline writing to S3, two `matchcast serve` and two `matchcast worker` processes. Heavy: ~60 s.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { CLUSTER_SKIP, type Cluster, get, REDIS_URL, startCluster, waitFor } from '../helpers/cluster.js';

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({ apis: 2, workers: 2, secondVersion: true, env: { PREDICTION_CACHE_TTL: '1' } });
});
after(async () => {
  await c?.close();
});

test('both APIs serve identical precomputed bodies', { skip: CLUSTER_SKIP }, async () => {
  const [a, b] = c.apis;
  for (const url of ['/predict/predictions/', `/predict/precomputed/${c.matchIds[0]}`, '/predict/cards/']) {
    const [ra, rb] = await Promise.all([get(a.base, url), get(b.base, url)]);
    assert.equal(ra.status, 200, `${url} on api A: ${ra.text.slice(0, 200)}`);
    assert.equal(rb.status, 200, `${url} on api B`);
    assert.equal(ra.text, rb.text, `${url}: same body on both APIs`);
  }
  const rows = (await get(a.base, '/predict/predictions/')).json as Array<{ model_stage: string }>;
  assert.ok(
    rows.some((r) => r.model_stage === 'champion'),
    'rows of the signed-off champion',
  );
  const health = await get(a.base, '/healthcheck/');
  assert.equal(health.json.database, true);
  const scores = await get(b.base, '/livescores/?year=2026');
  assert.equal(scores.status, 200, 'livescores from the PostgreSQL schema');
});

test('live requests spread over both workers', { skip: CLUSTER_SKIP }, async () => {
  const ids = c.matchIds.slice(0, 60);
  const results = await Promise.all(ids.map((id, i) => get(c.apis[i % 2].base, `/predict/${id}`)));
  for (const r of results) assert.equal(r.status, 200, r.text.slice(0, 200));
  assert.ok(
    results.every((r) => r.json.cached === false),
    'distinct ids: every one went to a worker',
  );
  const workers = (await get(c.apis[0].base, '/monitoring/celery/workers')).json as Array<{
    worker: string;
    ping: { ok: boolean };
  }>;
  assert.equal(workers.length, 2, 'both workers listed');
  assert.ok(
    workers.every((w) => w.ping.ok),
    'both workers connected',
  );
  // Who ran each task: BullMQ records the worker's name on the job (`processedBy`).
  const queue = new Queue(c.queueName, { connection: { url: REDIS_URL }, skipVersionCheck: true });
  let byWorker: Map<string, number>;
  try {
    const jobs = await queue.getCompleted(0, 999);
    byWorker = new Map(workers.map((w) => [w.worker, 0]));
    for (const job of jobs)
      if (job?.processedBy && byWorker.has(job.processedBy))
        byWorker.set(job.processedBy, byWorker.get(job.processedBy)! + 1);
  } finally {
    await queue.close();
  }
  const counts = [...byWorker.values()];
  const total = counts.reduce((s, n) => s + n, 0);
  assert.ok(total >= ids.length, `processed ${total} ≥ ${ids.length}`);
  assert.ok(
    counts.every((n) => n > 0),
    `both workers ran tasks: ${counts.join(' / ')}`,
  );
  const share = Math.min(...counts) / total;
  console.log(`# live spread: ${counts.join(' / ')} tasks (min share ${share.toFixed(2)})`);
});

test('a CLI promotion reaches both APIs and both workers without restart', {
  skip: CLUSTER_SKIP,
}, async () => {
  const list = await c.cli(['registry', 'list', '--json']);
  assert.equal(list.code, 0, list.out);
  const reg = JSON.parse(list.stdout) as {
    aliases: Record<string, string>;
    versions: Array<{ version: string; run_id: string }>;
  };
  const champion = reg.versions.find((v) => v.version === reg.aliases.champion);
  const other = reg.versions.find((v) => v.version !== reg.aliases.champion);
  assert.ok(champion && other, `two versions: ${list.out}`);
  const future = c.futureMatchIds;
  assert.ok(future.length >= 10, `future matches: ${future.length}`);
  const id = future[1];
  for (const api of c.apis) {
    const r = await get(api.base, `/predict/${id}`);
    assert.equal(r.json.model_run_id, champion.run_id);
  }

  const set = await c.cli(['registry', 'alias', 'set', 'champion', other.version, '--reason', 'ops test']);
  assert.equal(set.code, 0, set.out);
  const movedAt = Date.now();
  const seen: number[] = [];
  await Promise.all(
    c.apis.map(async (api, i) => {
      await waitFor(
        `api ${i} serving run ${other.run_id}`,
        async () => {
          // Distinct ids each poll: a cached result of the old run cannot answer.
          const r = await get(api.base, `/predict/${future[(2 + seen.length + i * 7) % future.length]}`);
          return r.status === 200 && r.json.model_run_id === other.run_id;
        },
        10_000,
        200,
      );
      seen.push(Date.now() - movedAt);
    }),
  );
  console.log(`# promotion seen by the APIs after ${seen.join(' / ')} ms (ALIAS_REFRESH_MS=1000)`);
  assert.ok(
    Math.max(...seen) < 1000 + 2500,
    'within the alias refresh period (plus a loaded-machine margin)',
  );
  // Load both workers with the new model: spread enough requests to reach each of them.
  const burst = await Promise.all(
    future.slice(0, 40).map((m, i) => get(c.apis[i % 2].base, `/predict/${m}`)),
  );
  assert.ok(burst.every((r) => r.status === 200 && r.json.model_run_id === other.run_id));
  await waitFor(
    'both workers to hold the new champion',
    async () => {
      const w = (await get(c.apis[1].base, '/monitoring/celery/workers')).json as Array<{
        models?: Record<string, { run_id: string }>;
      }>;
      return w.length === 2 && w.every((x) => x.models?.champion?.run_id === other.run_id);
    },
    12_000,
    500,
  );
  assert.equal(c.workers.filter((w) => w.running()).length, 2, 'no worker restarted');
  assert.equal(c.apis.filter((a) => a.proc.running()).length, 2, 'no API restarted');
});
