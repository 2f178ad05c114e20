// Rolling restart: two `matchcast serve` behind a round-robin proxy that, like an
// ingress, sends a request to the other upstream when a connection is refused or reset before any
// response. Under constant load each API in turn gets SIGTERM and is started again: 0 failed requests.
// Heavy: ~75 s.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, test } from 'node:test';
import { CLUSTER_SKIP, type Cluster, exitWithin, get, sleep, startCluster } from '../helpers/cluster.js';

let c: Cluster;
let proxy: http.Server | undefined;
before(async () => {
  if (CLUSTER_SKIP) return;
  c = await startCluster({
    apis: 2,
    workers: 2,
    env: { PREDICTION_CACHE_TTL: '1', SHUTDOWN_TIMEOUT_MS: '5000' },
  });
});
after(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await c?.close();
});

/** A round-robin reverse proxy over `ports`; a connection error before a response retries elsewhere. */
async function startProxy(ports: number[]): Promise<{ base: string; retries: () => number }> {
  // A fresh connection per upstream request, as an ingress without upstream keep-alive: a stopped API
  // shows up as a refused connection, never as a reused socket that dies under a request.
  const agent = new http.Agent({ keepAlive: false });
  let next = 0;
  let retries = 0;
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers.connection; // hop-by-hop: the upstream connection is the proxy's own
    // A retry goes to the upstream after the one that failed, as an ingress's "next upstream" does: a
    // shared round-robin counter advanced by the other in-flight retries could send it back to the dead one.
    const attempt = (tries: number, index: number) => {
      const port = ports[index % ports.length];
      const upstream = http.request(
        { host: '127.0.0.1', port, path: req.url, method: req.method, headers, agent },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          res.destroy(err);
          return;
        }
        if (tries < 20) {
          retries++;
          setTimeout(() => attempt(tries + 1, index + 1), tries < ports.length ? 0 : 50);
        } else {
          res.writeHead(502).end(`proxy: ${err.code}`);
        }
      });
      upstream.end();
    };
    attempt(0, next++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = server;
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    retries: () => retries,
  };
}

test('rolling restart of both APIs under constant load: zero failed requests', {
  skip: CLUSTER_SKIP,
}, async () => {
  const front = await startProxy(c.apis.map((a) => a.port));
  const statuses = new Map<string, number>();
  const failures: string[] = [];
  let sent = 0;
  let stop = false;
  let n = 0;
  const urls = () => {
    const id = c.matchIds[n++ % c.matchIds.length];
    return [
      `/predict/${id}`,
      `/predict/precomputed/${id}`,
      '/predict/cards/',
      '/healthcheck/',
      '/predict/predictions/',
    ][n % 5];
  };
  const loops = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const url = urls();
      sent++;
      try {
        const r = await get(front.base, url, 20_000);
        const key = `${url.replace(/\d+/g, ':id')} ${r.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (r.status !== 200) failures.push(`${url} → ${r.status} ${r.text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`${url} → ${String(err)}`);
      }
    }
  });

  const timings: string[] = [];
  try {
    await sleep(1500);
    for (const i of [0, 1]) {
      const old = c.apis[i];
      const t0 = Date.now();
      old.proc.child.kill('SIGTERM');
      const code = await exitWithin(old.proc, 15_000);
      assert.equal(code, 0, `api ${i} exit code`);
      const stoppedMs = Date.now() - t0;
      c.apis[i] = await c.startApi({}, old.port);
      timings.push(`api ${i}: exited 0 in ${stoppedMs} ms, back after ${Date.now() - t0} ms`);
      await sleep(1500);
    }
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  console.log(
    `# rolling restart: ${sent} requests, ${failures.length} failed, ${front.retries()} proxy retries; ${timings.join('; ')}`,
  );
  console.log(`# statuses: ${[...statuses].map(([k, v]) => `${k}×${v}`).join(', ')}`);
  assert.deepEqual(failures.slice(0, 10), [], 'no failed request');
  assert.ok(sent > 100, `load was sustained (${sent} requests)`);
});
