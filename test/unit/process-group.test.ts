// The tests' process groups: what a test's process leaves behind is killed with it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { signalGroup, spawnGroup } from '../helpers/process-group.js';

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z /.test(stat(pid));
function stat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return ') Z ';
  }
}

async function gone(pid: number, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** Spawns a shell that starts `sleep` in the background and prints its pid. */
async function leaderWithChild(
  script: string,
): Promise<{ leader: ReturnType<typeof spawnGroup>; child: number }> {
  const leader = spawnGroup('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const child = await new Promise<number>((resolve) => {
    let out = '';
    leader.stdout?.on('data', (d) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
  });
  return { leader, child };
}

test('a child left behind by an exited leader is killed', async () => {
  const { leader, child } = await leaderWithChild('sleep 60 & echo $!; exit 0');
  await new Promise((r) => leader.once('exit', r));
  assert.ok(await gone(child), `sleep ${child} outlived its leader`);
});

test('a signal to the group reaches the leader and what it started', async () => {
  const { leader, child } = await leaderWithChild('sleep 60 & echo $!; wait');
  assert.ok(alive(child));
  const exited = new Promise((r) => leader.once('exit', r));
  signalGroup(leader, 'SIGTERM');
  await exited;
  assert.ok(await gone(child), `sleep ${child} outlived the group's SIGTERM`);
});
