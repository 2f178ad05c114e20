import assert from 'node:assert/strict';
import http from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { BUCKETS, isMatchcastError } from '../../src/domain/index.js';
import { S3ObjectStore } from '../../src/storage/s3-object-store.js';
import { HISTORY_LENGTH } from '../../src/storage/write-history.js';
import { relay } from '../helpers/s3-conditional-proxy.js';
import { startS3rver, type TestS3Server } from '../helpers/s3rver.js';
import { twoProcessRace } from './cross-process.js';
import { objectStoreBehaviour } from './object-store-behaviour.js';

let server: TestS3Server;
before(async () => {
  server = await startS3rver();
});
after(async () => {
  await server?.stop();
});

function store(prefix = 'mc-'): S3ObjectStore {
  return new S3ObjectStore({
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    bucketPrefix: prefix,
  });
}

objectStoreBehaviour(
  's3 (s3rver)',
  async () => {
    const s = store('behave-');
    return { store: s, cleanup: () => s.close() };
  },
  { largeBytes: 0 },
);

describe('S3ObjectStore specifics', () => {
  test('ensureBuckets creates the five prefixed buckets, idempotently', async () => {
    const s = store('ens-');
    try {
      await s.ensureBuckets();
      await s.ensureBuckets();
      const res = await s.client.send(new ListBucketsCommand({}));
      const names = (res.Buckets ?? []).map((b) => b.Name).filter((n) => n?.startsWith('ens-'));
      assert.deepEqual(names.sort(), BUCKETS.map((b) => `ens-${b}`).sort());
    } finally {
      await s.close();
    }
  });

  test('a put into a missing bucket creates it; reads of a missing bucket are empty', async () => {
    const s = store('lazy-');
    try {
      assert.equal(await s.get('reports', 'x.json'), null);
      assert.equal(await s.head('reports', 'x.json'), null);
      assert.deepEqual(await s.list('reports'), []);
      await s.put('reports', 'x.json', '{}');
      assert.equal((await s.get('reports', 'x.json'))?.body.toString(), '{}');
    } finally {
      await s.close();
    }
  });

  test('a server without conditional writes (bare s3rver) is refused with MC_ERR_STORE_UNSUPPORTED', async () => {
    const bare = new S3ObjectStore({
      endpoint: server.rawEndpoint,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      bucketPrefix: 'bare-',
    });
    try {
      await assert.rejects(bare.ensureBuckets(), (e) => isMatchcastError(e, 'MC_ERR_STORE_UNSUPPORTED'));
      await assert.rejects(bare.put('models', 'k.json', '1', { ifNoneMatch: '*' }), (e) =>
        isMatchcastError(e, 'MC_ERR_STORE_UNSUPPORTED'),
      );
      // Plain writes and reads still work; the probe object never shows in listings.
      await bare.put('models', 'plain.json', '1');
      assert.deepEqual(
        (await bare.list('models')).map((o) => o.key),
        ['plain.json'],
      );
    } finally {
      await bare.close();
    }
  });

  test('behind the test proxy (conditional writes like AWS S3) the check passes', async () => {
    const s = store('probe-');
    try {
      await s.ensureBuckets();
      await s.put('models', 'k.json', '1', { ifNoneMatch: '*' });
      await assert.rejects(s.put('models', 'k.json', '2', { ifNoneMatch: '*' }), (e) =>
        isMatchcastError(e, 'MC_ERR_CONFLICT'),
      );
      assert.deepEqual(
        (await s.list('models')).map((o) => o.key),
        ['k.json'],
      );
    } finally {
      await s.close();
    }
  });

  test('presigned URLs work with plain fetch and name the prefixed bucket', async () => {
    const s = store('sign-');
    try {
      await s.put('reports', 'drift_report_1.html', '<h1>hi</h1>', {
        contentType: 'text/html; charset=utf-8',
      });
      const url = await s.presign('reports', 'drift_report_1.html', 3600);
      assert.match(url, /\/sign-reports\/drift_report_1\.html\?/);
      assert.match(url, /X-Amz-Expires=3600/);
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '<h1>hi</h1>');
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    } finally {
      await s.close();
    }
  });

  test('two processes: compare-and-swap loses no increment, create-exclusive has one winner', async () => {
    const s = store('');
    try {
      await twoProcessRace(s, { driver: 's3', endpoint: server.endpoint }, 10, 10);
    } finally {
      await s.close();
    }
  });

  test('two processes through lost answers: no compare-and-swap update is lost or doubled, no create has two winners', async () => {
    // Every third conditional PUT that would land is cut before it is forwarded, cut after it
    // landed, or answered 500 after it landed, in turn (one cycle for both writers). A write fails
    // only if all three of its sends are dropped, which needs the rival to land exactly eight PUTs
    // between each of them (within ~25 ms). A landed write's failure is held back
    // 150 ms, so the rival often writes on top of it before the writer learns of the failure.
    const { endpoint, fired } = await server.faultyEndpoint(
      (n) => (n % 3 === 0 ? (['drop', 'lose-answer', 'error-after'] as const)[(n / 3) % 3] : undefined),
      150,
    );
    const s = store('lossy-');
    try {
      await twoProcessRace(s, { driver: 's3', endpoint, maxAttempts: 3, bucketPrefix: 'lossy-' }, 15, 12);
      for (const kind of ['drop', 'lose-answer', 'error-after'])
        assert.ok((fired[kind] ?? 0) >= 3, `fault ${kind} fired: ${JSON.stringify(fired)}`);
    } finally {
      await s.close();
    }
  });

  test('an unreachable store fails fast with MC_ERR_STORE_UNAVAILABLE', async () => {
    const dead = new S3ObjectStore({
      endpoint: 'http://127.0.0.1:9',
      accessKeyId: 'x',
      secretAccessKey: 'y',
    });
    try {
      for (const op of [
        () => dead.get('reports', 'x'),
        () => dead.head('reports', 'x'),
        () => dead.list('reports'),
        () => dead.put('reports', 'x', 'y'),
        () => dead.put('reports', 'x', 'y', { ifNoneMatch: '*' }),
        () => dead.delete('reports', 'x'),
        () => dead.ensureBuckets(),
      ]) {
        const t0 = Date.now();
        await assert.rejects(op(), { code: 'MC_ERR_STORE_UNAVAILABLE' });
        assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
      }
    } finally {
      await dead.close();
    }
  });

  test('a store that accepts connections but never answers is bounded by the request timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((sock) => {
      sockets.add(sock);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const dead = new S3ObjectStore({
      endpoint: `http://127.0.0.1:${port}`,
      accessKeyId: 'x',
      secretAccessKey: 'y',
      requestTimeoutMs: 400,
      maxAttempts: 2,
    });
    try {
      const t0 = Date.now();
      await assert.rejects(dead.head('reports', 'x'), { code: 'MC_ERR_STORE_UNAVAILABLE' });
      assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
      const t1 = Date.now();
      const bounded = new S3ObjectStore({
        endpoint: `http://127.0.0.1:${port}`,
        accessKeyId: 'x',
        secretAccessKey: 'y',
        operationTimeoutMs: 300,
      });
      await assert.rejects(bounded.get('reports', 'x'), { code: 'MC_ERR_STORE_UNAVAILABLE' });
      assert.ok(Date.now() - t1 < 2000, `took ${Date.now() - t1} ms`);
      await bounded.close();
    } finally {
      await dead.close();
      for (const sock of sockets) sock.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
  test('a conditional put whose answer is lost is retried and reported as written, not as a conflict', async () => {
    // In front of the test server: the first PUT of each key is forwarded and lands, then its
    // connection is cut before the answer, as a timeout or reset would; the SDK retries it.
    const cut = new Set<string>();
    // A peer's write that lands instead of this one: the first PUT of lost-c is not forwarded, the
    // peer writes other bytes, then the connection is cut; the retry must still be a conflict.
    const peer = new S3ObjectStore({
      endpoint: server.endpoint,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      bucketPrefix: 'lost-',
      checkConditionalWrites: false,
    });
    // Lost-g's first send is cut before it is forwarded and kept; when the writer then reads the
    // object, the proxy takes that read, lands the kept send, and only then answers the read (which
    // still shows the precondition holding): the resend is refused (412) though it is the same write.
    let heldG: { path: string; headers: http.IncomingHttpHeaders; body: Buffer } | undefined;
    let refusedG = 0;
    const port = Number(new URL(server.endpoint).port);
    // What a peer does after a key's compare-and-swap landed, before its answer is cut.
    const afterLanding: Record<string, () => Promise<unknown>> = {
      // Lost-d: the peer swaps more times than a history keeps: whether it was written cannot be
      // told, and is not guessed.
      '/lost-models/lost-d.json': async () => {
        for (let i = 0; i < HISTORY_LENGTH; i++) {
          const cur = await peer.get('models', 'lost-d.json');
          await peer.put('models', 'lost-d.json', `{"peer":${i}}`, { ifMatch: cur?.etag ?? '' });
        }
      },
      // Lost-e: a peer increments on top.
      '/lost-models/lost-e.json': async () => {
        const cur = await peer.get('models', 'lost-e.json');
        await peer.put('models', 'lost-e.json', `${Number(cur?.body.toString()) + 1}`, {
          ifMatch: cur?.etag ?? '',
        });
      },
      // Lost-f: a plain put replaces it.
      '/lost-models/lost-f.json': () => peer.put('models', 'lost-f.json', 'reset'),
    };
    const lossy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const key = (req.url ?? '').split('?')[0] ?? '';
        const path = req.url ?? '';
        const body = Buffer.concat(chunks);
        const cutAnswer = () => req.socket.destroy();
        const firstCas = req.method === 'PUT' && !cut.has(key) && req.headers['if-match'] !== undefined;
        if (firstCas && key.endsWith('/lost-g.json')) {
          cut.add(key);
          heldG = { path, headers: req.headers, body };
          cutAnswer();
          return;
        }
        if (req.method === 'HEAD' && key.endsWith('/lost-g.json') && heldG) {
          const held = heldG;
          heldG = undefined;
          void (async () => {
            const head = await relay(port, 'HEAD', path, req.headers, null);
            const landed = await relay(port, 'PUT', held.path, held.headers, held.body);
            assert.equal(landed.status, 200, 'the kept send lands');
            res.writeHead(head.status, head.headers);
            res.end();
          })();
          return;
        }
        if (req.method === 'PUT' && key.endsWith('/lost-c.json') && !cut.has(key)) {
          cut.add(key);
          void peer.put('models', 'lost-c.json', '{"peer":1}').finally(cutAnswer);
          return;
        }
        const then = afterLanding[key];
        if (firstCas && then) {
          cut.add(key);
          void relay(port, 'PUT', path, req.headers, body)
            .then(then, () => undefined)
            .finally(cutAnswer);
          return;
        }
        void relay(port, req.method ?? 'GET', path, req.headers, body).then((up) => {
          if (req.method === 'PUT' && up.status === 200 && !cut.has(key) && /\/lost-[ab]\.json$/.test(key)) {
            cut.add(key);
            cutAnswer();
            return;
          }
          if (req.method === 'PUT' && key.endsWith('/lost-g.json') && up.status === 412) refusedG++;
          res.writeHead(up.status, up.headers);
          res.end(up.body);
        }, cutAnswer);
      });
    });
    await new Promise<void>((r) => lossy.listen(0, '127.0.0.1', r));
    const s = new S3ObjectStore({
      endpoint: `http://127.0.0.1:${(lossy.address() as AddressInfo).port}`,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
      bucketPrefix: 'lost-',
      checkConditionalWrites: false,
      // Lost-d's peer writes 16 times before the answer is cut: no socket timeout may cut it first.
      requestTimeoutMs: 60_000,
    });
    try {
      await s.ensureBuckets();
      const created = await s.put('models', 'lost-a.json', '{"v":1}', { ifNoneMatch: '*' });
      assert.equal((await s.get('models', 'lost-a.json'))?.body.toString(), '{"v":1}');
      assert.equal(created.etag, (await s.head('models', 'lost-a.json'))?.etag);
      assert.equal(cut.size, 1, 'the first answer was lost');
      // A compare-and-swap whose answer is lost likewise.
      const swapped = await s.put('models', 'lost-b.json', '{"v":1}');
      cut.delete('/lost-models/lost-b.json');
      await s.put('models', 'lost-b.json', '{"v":2}', { ifMatch: swapped.etag });
      assert.equal((await s.get('models', 'lost-b.json'))?.body.toString(), '{"v":2}');
      // Still a conflict when the object holds someone else's bytes.
      await assert.rejects(s.put('models', 'lost-a.json', '{"v":9}', { ifNoneMatch: '*' }), {
        code: 'MC_ERR_CONFLICT',
      });
      await assert.rejects(s.put('models', 'lost-b.json', '{"v":3}', { ifMatch: swapped.etag }), {
        code: 'MC_ERR_CONFLICT',
      });
      // Lost, and a peer's plain put now holds the key: it may have replaced this write, so the
      // outcome is unknown (not a guessed conflict), and the peer's write stands.
      await assert.rejects(s.put('models', 'lost-c.json', '{"v":1}', { ifNoneMatch: '*' }), {
        code: 'MC_ERR_STORE_UNAVAILABLE',
      });
      assert.ok(cut.has('/lost-models/lost-c.json'), 'the first attempt was cut');
      assert.equal((await s.get('models', 'lost-c.json'))?.body.toString(), '{"peer":1}');
      const d = await s.put('models', 'lost-d.json', '{"v":1}');
      await assert.rejects(s.put('models', 'lost-d.json', '{"v":2}', { ifMatch: d.etag }), (err: unknown) => {
        assert.ok(isMatchcastError(err, 'MC_ERR_STORE_UNAVAILABLE'), String(err));
        assert.match(err.message, /whether it was written is unknown/);
        return true;
      });
      assert.equal((await s.get('models', 'lost-d.json'))?.body.toString(), `{"peer":${HISTORY_LENGTH - 1}}`);
      // Landed, then a peer's increment on top: written, one increment each.
      const e = await s.put('models', 'lost-e.json', '0');
      const e1 = await s.put('models', 'lost-e.json', '1', { ifMatch: e.etag });
      assert.equal((await s.get('models', 'lost-e.json'))?.body.toString(), '2');
      // Its etag names its own version, which is gone: a compare-and-swap on it is a conflict.
      await assert.rejects(s.put('models', 'lost-e.json', '3', { ifMatch: e1.etag }), {
        code: 'MC_ERR_CONFLICT',
      });
      // Landed, then replaced by a plain put: undecidable.
      const f = await s.put('models', 'lost-f.json', '0');
      await assert.rejects(s.put('models', 'lost-f.json', '1', { ifMatch: f.etag }), {
        code: 'MC_ERR_STORE_UNAVAILABLE',
      });
      assert.ok(['lost-d', 'lost-e', 'lost-f'].every((k) => cut.has(`/lost-models/${k}.json`)));
      // A first send that lands late, after the resend was decided: the resend is the same write, so
      // its 412 is recognised as this write having landed.
      const g = await s.put('models', 'lost-g.json', '0');
      await s.put('models', 'lost-g.json', '1', { ifMatch: g.etag });
      assert.ok(
        cut.has('/lost-models/lost-g.json') && heldG === undefined,
        'the first send was kept and landed',
      );
      assert.equal(refusedG, 1, 'the resend was refused');
      assert.equal((await s.get('models', 'lost-g.json'))?.body.toString(), '1');
    } finally {
      await s.close();
      await peer.close();
      lossy.closeAllConnections();
      await new Promise((r) => lossy.close(r));
    }
  });
});
