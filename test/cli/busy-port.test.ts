// A port another process holds is reported in one coded line, exit 1, before any work: `start` used
// to ingest and run the whole first-start pipeline, then die on a raw EADDRINUSE stack trace.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runServer } from '../../src/cli/server.js';
import { isMatchcastError } from '../../src/domain/index.js';
import type { RuntimeContext } from '../../src/runtime.js';
import { embeddedApp } from '../helpers/app-context.js';
import { killAll, runCli } from '../helpers/cluster.js';

let dir: string;
let holder: net.Server;
let port: number;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mc-cli-port-'));
  holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '0.0.0.0', resolve));
  port = (holder.address() as net.AddressInfo).port;
});
after(async () => {
  await killAll();
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? dir,
  DATA_DIR: path.join(dir, 'data'),
  LOG_LEVEL: 'info',
  API_KEY: 'busy-port-test-key-0123456789',
});

test('start and serve on a busy port: one coded line, exit 1, nothing done', async () => {
  for (const args of [
    ['start', '--port', String(port)],
    ['serve', '--port', String(port)],
  ]) {
    const started = Date.now();
    const r = await runCli(args, env(), 60_000);
    const label = `matchcast ${args.join(' ')}:\n${r.out}`;
    assert.equal(r.code, 1, label);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 1, label);
    assert.match(
      lines[0]!,
      new RegExp(`port ${port} on (0\\.0\\.0\\.0|127\\.0\\.0\\.1) is in use.*--port.*\\[MC_ERR_CONFIG\\]`),
    );
    // Before any work: no database, no objects (the first start would have ingested and trained).
    const left = await readdir(path.join(dir, 'data')).catch(() => [] as string[]);
    assert.deepEqual(left, [], `DATA_DIR holds ${left.join(', ')}`);
    assert.ok(Date.now() - started < 30_000, `${args[0]} took ${Date.now() - started} ms`);
  }
});

test('a port taken between the check and listen: one coded error, the runtime closed', async () => {
  const { app, ctx } = await embeddedApp({ PORT: String(port) });
  await app.close();
  let closed = false;
  const runtime = {
    ...ctx,
    async close() {
      closed = true;
      await ctx.db.close();
    },
  } as RuntimeContext;
  await assert.rejects(runServer(runtime, { until: new Promise(() => {}) }), (err: unknown) => {
    assert.ok(isMatchcastError(err, 'MC_ERR_CONFIG'), String(err));
    assert.match(err.message, new RegExp(`^Invalid setting PORT: port ${port} .* is in use`));
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
  assert.ok(closed, 'the runtime is closed when listen fails');
});
