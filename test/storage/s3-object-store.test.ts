import assert from 'node:assert/strict';
import http from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ListBucketsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BUCKETS } from '../../src/domain/index.js';
import { S3ObjectStore } from '../../src/storage/s3-object-store.js';
import { startS3rver, type TestS3Server } from '../helpers/s3rver.js';
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
      const res = await (await s.client()).send(new ListBucketsCommand({}));
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

  test('a bucket of an earlier version: its probe object (a reserved key) never lists', async () => {
    const s = store('old-');
    try {
      await s.ensureBuckets();
      await (await s.client()).send(
        new PutObjectCommand({ Bucket: 'old-models', Key: '.mc-probe/conditional-writes', Body: '1' }),
      );
      await s.put('models', 'runs/r1/model.json', '{}');
      assert.deepEqual(
        (await s.list('models')).map((o) => o.key),
        ['runs/r1/model.json'],
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

  test("a failed attempt (500 InternalError) is retried by the SDK's own retry, within maxAttempts", async () => {
    // In front of the test server: the first PUT of every object is answered 500 and not forwarded.
    const refused = new Set<string>();
    const upstream = new URL(server.endpoint);
    const front = http.createServer((req, res) => {
      const key = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'PUT' && /^\/[^/]+\/./.test(key) && !refused.has(key)) {
        refused.add(key);
        req.resume();
        res.writeHead(500, { 'content-type': 'application/xml' });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>x</Message></Error>',
        );
        return;
      }
      const up = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const opts = { endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', bucketPrefix: 'retry-' };
    const twice = new S3ObjectStore({ ...opts, maxAttempts: 2 });
    const once = new S3ObjectStore({ ...opts, maxAttempts: 1 });
    try {
      await twice.ensureBuckets();
      await twice.put('models', 'a.json', '{"a":1}');
      assert.equal((await twice.get('models', 'a.json'))?.body.toString(), '{"a":1}');
      await assert.rejects(once.put('models', 'b.json', '{"b":1}'), { code: 'MC_ERR_STORE_UNAVAILABLE' });
      assert.equal(await once.head('models', 'b.json'), null);
      assert.deepEqual([...refused].sort(), ['/retry-models/a.json', '/retry-models/b.json']);
    } finally {
      await twice.close();
      await once.close();
      front.closeAllConnections();
      await new Promise((r) => front.close(r));
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
});
