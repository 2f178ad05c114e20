// Worker faults (spec §7): a worker SIGKILLed under load, and every worker down.
// Real processes: two `matchcast serve`, two `matchcast worker`, PostgreSQL, Redis, s3rver. Heavy: ~80 s.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import {
  CLUSTER_SKIP,
  type Cluster,
  get,
  post,
  type Res,
  sleep,
  startCluster,
  waitFor,
} from '../helpers/cluster.js';

const PREDICT_TIMEOUT_MS = 4000;

let c: Cluster;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({
    apis: 2,
    workers: 2,
    env: { PREDICT_TIMEOUT_MS: String(PREDICT_TIMEOUT_MS), PREDICTION_CACHE_TTL: '1' },
  });
});
after(async () => {
  await c?.close();
});

function signal(p: { child: { pid?: number } }, sig: NodeJS.Signals): void {
  if (p.child.pid) process.kill(p.child.pid, sig);
}

/** The task id a 504 names (`No result for task <id> within … ms`). */
function timedOutTask(r: Res): string {
  const m = /task ([0-9a-f-]{36})/.exec(String(r.json?.detail));
  assert.ok(m, `504 names its task: ${r.text}`);
  return m[1];
}

async function finalStatus(base: string, taskId: string): Promise<string> {
  return waitFor(
    `task ${taskId} to finish`,
    async () => {
      const r = await get(base, `/monitoring/task_status/${taskId}`);
      if (r.status !== 200) return false;
      if (r.json.status === 'SUCCESS') return 'SUCCESS';
      // A sync task whose caller's deadline passed before a worker (re)started it is skipped, coded
      // EXPIRED: it is finished, not lost.
      if (r.json.status === 'FAILURE')
        return r.json.result?.code === 'MC_ERR_TASK_EXPIRED' ? 'EXPIRED' : 'FAILURE';
      return false;
    },
    40_000,
    250,
  );
}

test('a worker SIGKILLed under load: every request answered 200 or 504, every task SUCCESS', {
  skip: CLUSTER_SKIP,
}, async () => {
  const victim = c.workers[0];
  const sync: Res[] = [];
  const asyncIds: string[] = [];
  const failures: string[] = [];
  let stop = false;
  let n = 0;
  const loop = async (i: number) => {
    while (!stop) {
      const id = c.matchIds[n++ % c.matchIds.length];
      const api = c.apis[(i + n) % 2];
      try {
        if (n % 4 === 0) {
          const r = await post(api.base, '/predict/async/', { match_id: id });
          if (r.status === 202) asyncIds.push(r.json.task_id);
          else failures.push(`async ${r.status} ${r.text}`);
        } else {
          sync.push(await get(api.base, `/predict/${id}`, PREDICT_TIMEOUT_MS + 10_000));
        }
      } catch (err) {
        failures.push(`request failed: ${String(err)}`);
      }
    }
  };
  const loops = Array.from({ length: 12 }, (_, i) => loop(i));
  await sleep(1000);
  // Kill the victim while it certainly holds tasks: freeze it and read which active jobs it took
  // (BullMQ records the taking worker's name in the job hash, field `pb`; ours is host:pid:…). If it
  // holds none at that instant, thaw it and try again; most requests are cache hits (TTL 1 s).
  const redis = new Redis(c.env.REDIS_URL, { maxRetriesPerRequest: 1 });
  const activeKey = `bull:${c.queueName}:active`;
  const victimPrefix = `${hostname()}:${victim.child.pid}:`;
  let held: string[] = [];
  let killedAt = 0;
  try {
    for (let attempt = 0; attempt < 60 && held.length === 0; attempt++) {
      await sleep(100);
      signal(victim, 'SIGSTOP');
      await sleep(200);
      const active = await redis.lrange(activeKey, 0, -1);
      const takers = await Promise.all(active.map((id) => redis.hget(`bull:${c.queueName}:${id}`, 'pb')));
      held = active.filter((_, i) => takers[i]?.startsWith(victimPrefix));
      if (held.length === 0) signal(victim, 'SIGCONT');
    }
    assert.ok(held.length > 0, 'caught the victim holding tasks (60 tries)');
    killedAt = Date.now();
    await victim.stop('SIGKILL', 2000);
  } catch (err) {
    // Stop the load before failing: left running, the loops would hold the file open until its timeout.
    stop = true;
    try {
      signal(victim, 'SIGCONT');
    } catch {
      // already gone
    }
    await Promise.all(loops);
    throw err;
  } finally {
    redis.disconnect();
  }
  await sleep(1500);
  stop = true;
  await Promise.all(loops);

  assert.deepEqual(failures, [], 'no request vanished or failed');
  const statuses = new Map<number, number>();
  for (const r of sync) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const bad = sync.filter((r) => r.status !== 200 && r.status !== 504);
  assert.deepEqual(
    bad.map((r) => `${r.status} ${r.text}`),
    [],
    'every sync request answered 200 or 504',
  );
  const timedOut = sync.filter((r) => r.status === 504).map(timedOutTask);
  // Every task that was not answered in time, and every async submission, must complete: the other
  // worker picks up what the dead one held (BullMQ stalled-job recovery, lock 10 s + check 5 s).
  // A sync task (held or timed out) whose caller's deadline passed before the recovery is skipped as
  // EXPIRED; an async task has no deadline and must succeed.
  const tracked = [...new Set([...held, ...timedOut, ...asyncIds])];
  const finals = await Promise.all(tracked.map((id, i) => finalStatus(c.apis[i % 2].base, id)));
  const asyncSet = new Set(asyncIds);
  assert.ok(
    finals.every((s, i) => s === 'SUCCESS' || (s === 'EXPIRED' && !asyncSet.has(tracked[i]))),
    `all ${tracked.length} tracked tasks finished: ${finals.join(',')}`,
  );

  // The tasks the dead worker held went through stalled-job recovery (their hashes count a stall).
  const check = new Redis(c.env.REDIS_URL, { maxRetriesPerRequest: 1 });
  let stalled = 0;
  try {
    for (const id of held) if (Number(await check.hget(`bull:${c.queueName}:${id}`, 'stc')) > 0) stalled++;
  } finally {
    check.disconnect();
  }
  console.log(
    `# SIGKILL under load: ${sync.length} sync (${[...statuses].map(([s, k]) => `${k}×${s}`).join(', ')}), ` +
      `${asyncIds.length} async; the dead worker held ${held.length} tasks; ${tracked.length} tracked tasks ` +
      `(held, timed out, async) finished within ${Date.now() - killedAt} ms of the kill ` +
      `(${finals.filter((s) => s === 'EXPIRED').length} sync ones expired with their callers)`,
  );
  assert.equal(stalled, held.length, 'every task the dead worker held was recovered by the other');

  // Replace the dead worker for the next test.
  c.workers[0] = await c.startWorker();
});

test('all workers down: 504 after the bound, tasks pending; once a worker returns the async one completes and the timed-out sync one is skipped as expired', {
  skip: CLUSTER_SKIP,
}, async () => {
  await Promise.all(c.workers.map((w) => w.stop('SIGTERM')));
  const id = c.matchIds[3];
  // Wait out the cache TTL of any earlier result of this match.
  await sleep(1100);
  const [live, queued] = await Promise.all([
    get(c.apis[0].base, `/predict/${id}`),
    post(c.apis[1].base, '/predict/async/', { match_id: c.matchIds[4] }),
  ]);
  assert.equal(live.status, 504, live.text);
  assert.equal(live.json.code, 'MC_ERR_TASK_TIMEOUT');
  assert.ok(
    live.ms >= PREDICT_TIMEOUT_MS - 50 && live.ms < PREDICT_TIMEOUT_MS + 3000,
    `bound kept: ${live.ms} ms`,
  );
  assert.equal(queued.status, 202);
  const ids = [timedOutTask(live), queued.json.task_id as string];
  for (const taskId of ids) {
    const s = await get(c.apis[0].base, `/monitoring/task_status/${taskId}`);
    assert.equal(s.json.status, 'pending', `${taskId} pending while no worker runs`);
    assert.equal(s.json.result, null);
  }
  const metrics = await get(c.apis[0].base, '/metrics');
  assert.match(metrics.text, /prediction_timeouts_total\S* [1-9]/);

  const started = Date.now();
  c.workers[0] = await c.startWorker();
  assert.equal(await finalStatus(c.apis[1].base, ids[1]), 'SUCCESS', 'the async task');
  // Its caller got 504 and left: the worker does not compute an answer nobody reads.
  assert.equal(await finalStatus(c.apis[1].base, ids[0]), 'EXPIRED', 'the timed-out sync task');
  const r = await get(c.apis[0].base, `/monitoring/task_status/${ids[0]}`);
  assert.equal(r.json.result.code, 'MC_ERR_TASK_EXPIRED');
  console.log(
    `# all workers down: 504 after ${Math.round(live.ms)} ms; queued tasks done ${Date.now() - started} ms after a worker start`,
  );
});
