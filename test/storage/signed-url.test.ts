import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/api/context.js';
import { registerErrorHandling } from '../../src/api/plugins/errors.js';
import { filesRoutes } from '../../src/api/routes/files.js';
import { parseConfig } from '../../src/config.js';
import { FsObjectStore } from '../../src/storage/fs-object-store.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { resolveUrlSigningSecret, verifySignedUrl } from '../../src/storage/index.js';
import { signObjectUrl } from '../../src/storage/signed-url.js';
import { embeddedApp } from '../helpers/app-context.js';

const SECRET = 'a'.repeat(64);
const NOW = new Date('2026-01-01T00:00:00Z');

function parts(url: string) {
  const u = new URL(url);
  return {
    path: u.pathname,
    expires: u.searchParams.get('expires') ?? '',
    signature: u.searchParams.get('signature') ?? '',
  };
}

describe('signObjectUrl / verifySignedUrl', () => {
  const url = signObjectUrl({
    baseUrl: 'https://mc.example/',
    bucket: 'reports',
    key: 'drift/report 1.html',
    ttlSeconds: 60,
    secret: SECRET,
    now: NOW,
  });
  const { expires, signature } = parts(url);

  test('shape: /files/<bucket>/<encoded key>?expires=<unix>&signature=<hex>', () => {
    assert.ok(url.startsWith('https://mc.example/files/reports/drift/report%201.html?expires='));
    assert.equal(Number(expires), NOW.getTime() / 1000 + 60);
    assert.match(signature, /^[0-9a-f]{64}$/);
  });

  test('valid until expiry, refused from then on', () => {
    const base = { bucket: 'reports', key: 'drift/report 1.html', expires, signature, secret: SECRET };
    assert.deepEqual(verifySignedUrl({ ...base, now: NOW }), {
      ok: true,
      expiresAt: new Date(NOW.getTime() + 60_000),
    });
    assert.equal(verifySignedUrl({ ...base, now: new Date(NOW.getTime() + 59_999) }).ok, true);
    assert.deepEqual(verifySignedUrl({ ...base, now: new Date(NOW.getTime() + 60_000) }), {
      ok: false,
      reason: 'expired',
    });
  });

  test('tampering with any part is refused', () => {
    const base = {
      bucket: 'reports',
      key: 'drift/report 1.html',
      expires,
      signature,
      secret: SECRET,
      now: NOW,
    };
    const flipped = (signature[0] === '0' ? '1' : '0') + signature.slice(1);
    const cases = [
      { ...base, signature: flipped },
      { ...base, signature: signature.toUpperCase() === signature ? flipped : flipped.toUpperCase() },
      { ...base, key: 'drift/report 2.html' },
      { ...base, bucket: 'models' },
      { ...base, expires: String(Number(expires) + 3600) },
      { ...base, secret: 'b'.repeat(64) },
      { ...base, signature: signature.slice(0, 63) },
      { ...base, signature: undefined },
      { ...base, expires: undefined },
      { ...base, expires: '1e12' },
      { ...base, expires: ['1', '2'] },
    ];
    for (const c of cases) assert.equal(verifySignedUrl(c).ok, false, JSON.stringify({ ...c, secret: '…' }));
  });

  test('invalid keys and buckets cannot be signed', () => {
    const base = { baseUrl: 'http://x', ttlSeconds: 60, secret: SECRET };
    assert.throws(() => signObjectUrl({ ...base, bucket: 'reports', key: '../x' }), {
      code: 'MC_ERR_INVALID_KEY',
    });
    // @ts-expect-error unknown bucket
    assert.throws(() => signObjectUrl({ ...base, bucket: 'etc', key: 'x' }), { code: 'MC_ERR_INVALID_KEY' });
    assert.throws(() => signObjectUrl({ ...base, bucket: 'reports', key: 'x', ttlSeconds: 0 }), {
      code: 'MC_ERR_VALIDATION',
    });
  });
});

describe('resolveUrlSigningSecret', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mc-secret-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('generated once, kept under DATA_DIR with mode 0600, configured secret wins', async () => {
    const dataDir = path.join(dir, 'var');
    const s1 = resolveUrlSigningSecret({ urlSigningSecret: undefined, dataDir });
    assert.match(s1, /^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'url-signing.secret');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await readFile(file, 'utf8')).trim(), s1);
    assert.equal(resolveUrlSigningSecret({ urlSigningSecret: undefined, dataDir }), s1);
    assert.equal(
      resolveUrlSigningSecret({ urlSigningSecret: 'configured-secret', dataDir }),
      'configured-secret',
    );
  });
});

describe('GET /files/:bucket/*', () => {
  let dir: string;
  let app: FastifyInstance;
  let store: FsObjectStore;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mc-files-'));
    const config = parseConfig({ DATA_DIR: dir, PUBLIC_BASE_URL: 'http://api.test' });
    store = new FsObjectStore({
      root: path.join(dir, 'objects'),
      publicBaseUrl: config.publicBaseUrl,
      urlSigningSecret: resolveUrlSigningSecret(config),
    });
    await store.put('reports', 'drift_report_1.html', '<h1>drift</h1>');
    await store.put('reports', 'roi_by_region.csv', 'region_name,roi_pct\n');
    await store.put('reports', 'drift_latest.json', '{}');
    await store.put('predictions', 'predictions.parquet', Buffer.from('PAR1'));
    await store.put('reports', '%2e%2e/x.json', '"literal"');
    app = Fastify({ routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 } });
    registerErrorHandling(app);
    // As in the real app: helmet's strict CSP must be replaced, not merged, for HTML reports.
    await app.register(helmet);
    await filesRoutes(app, { config, store } as unknown as AppContext);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function fetchSigned(bucket: 'reports' | 'predictions', key: string, ttl = 3600) {
    const { path: p, expires, signature } = parts(await store.presign(bucket, key, ttl));
    return app.inject({ method: 'GET', url: `${p}?expires=${expires}&signature=${signature}` });
  }

  test('serves the object with its content type and a private cache lifetime', async () => {
    const html = await fetchSigned('reports', 'drift_report_1.html', 600);
    assert.equal(html.statusCode, 200);
    assert.equal(html.body, '<h1>drift</h1>');
    assert.equal(html.headers['content-type'], 'text/html; charset=utf-8');
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(html.headers['cache-control']))?.[1]);
    assert.ok(maxAge > 590 && maxAge <= 600, String(html.headers['cache-control']));
    const csp = String(html.headers['content-security-policy']);
    assert.match(csp, /sandbox allow-scripts/);
    assert.match(csp, /script-src 'unsafe-inline'/);
    assert.doesNotMatch(csp, /script-src 'self'/);
    assert.equal(
      (await fetchSigned('reports', 'roi_by_region.csv')).headers['content-type'],
      'text/csv; charset=utf-8',
    );
    assert.match(
      String((await fetchSigned('reports', 'drift_latest.json')).headers['content-type']),
      /^application\/json/,
    );
    const pq = await fetchSigned('predictions', 'predictions.parquet');
    assert.equal(pq.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(pq.rawPayload, Buffer.from('PAR1'));
  });

  test('a literal %2e%2e key is served as itself', async () => {
    const res = await fetchSigned('reports', '%2e%2e/x.json');
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '"literal"');
  });

  test('valid link to an absent object is 404', async () => {
    const res = await fetchSigned('reports', 'gone.html');
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { detail: 'Not found', code: 'MC_ERR_NOT_FOUND' });
  });

  test('every refusal is the same 403', async () => {
    const good = parts(await store.presign('reports', 'drift_report_1.html', 3600));
    const other = parts(await store.presign('reports', 'drift_latest.json', 3600));
    const expired = parts(
      signObjectUrl({
        baseUrl: 'http://api.test',
        bucket: 'reports',
        key: 'drift_report_1.html',
        ttlSeconds: 1,
        secret: resolveUrlSigningSecret({ urlSigningSecret: undefined, dataDir: dir }),
        now: new Date(Date.now() - 10_000),
      }),
    );
    const urls = [
      `${good.path}`,
      `${good.path}?expires=${good.expires}`,
      `${good.path}?signature=${good.signature}`,
      `${good.path}?expires=${Number(good.expires) + 1}&signature=${good.signature}`,
      `${good.path}?expires=${good.expires}&signature=${'0'.repeat(64)}`,
      // a signature for one object does not open another
      `/files/reports/drift_latest.json?expires=${good.expires}&signature=${good.signature}`,
      `/files/models/drift_report_1.html?expires=${good.expires}&signature=${good.signature}`,
      `/files/etc/passwd?expires=${other.expires}&signature=${other.signature}`,
      `/files/reports/..%2f..%2fetc%2fpasswd?expires=${good.expires}&signature=${good.signature}`,
      `/files/reports/a%5Cb?expires=${good.expires}&signature=${good.signature}`,
      `${expired.path}?expires=${expired.expires}&signature=${expired.signature}`,
    ];
    for (const url of urls) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 403, url);
      assert.deepEqual(res.json(), { detail: 'Invalid or expired link', code: 'MC_ERR_FORBIDDEN' }, url);
    }
  });

  test('dot-dot segments in the URL never reach a file', async () => {
    const good = parts(await store.presign('reports', 'drift_report_1.html', 3600));
    // The HTTP layer may resolve the dots itself (no route: 404); either way nothing is served.
    for (const p of ['/files/reports/%2e%2e/%2e%2e/etc/passwd', '/files/reports/../../../etc/passwd']) {
      const res = await app.inject({
        method: 'GET',
        url: `${p}?expires=${good.expires}&signature=${good.signature}`,
      });
      assert.ok([403, 404].includes(res.statusCode), `${p}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /root:/);
    }
  });

  test('long keys (beyond the router parameter limit) are served', async () => {
    const key = `deep/${'k'.repeat(180)}/${'j'.repeat(180)}/report.json`;
    await store.put('reports', key, '{"long":true}');
    const res = await fetchSigned('reports', key);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '{"long":true}');
  });
});

describe('GET /files inside the real app (auth, validation, security headers)', () => {
  let app: FastifyInstance;
  let store: ObjectStore;
  before(async () => {
    const built = await embeddedApp();
    app = built.app;
    store = built.ctx.store;
    await store.put('reports', 'data_quality_1.html', '<script>document.title="ok"</script>');
  });
  after(async () => {
    await app?.close();
  });

  test('no API key needed; sandboxed CSP replaces the strict one; refusals are 403', async () => {
    const { path: p, expires, signature } = parts(await store.presign('reports', 'data_quality_1.html', 60));
    const ok = await app.inject({ method: 'GET', url: `${p}?expires=${expires}&signature=${signature}` });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(ok.headers['content-security-policy']);
    assert.match(csp, /sandbox allow-scripts/);
    assert.doesNotMatch(csp, /script-src 'self'/);
    assert.ok(ok.headers['x-request-id']);
    const bad = await app.inject({
      method: 'GET',
      url: `${p}?expires=${expires}&signature=${'f'.repeat(64)}`,
    });
    assert.equal(bad.statusCode, 403);
    assert.deepEqual(bad.json(), { detail: 'Invalid or expired link', code: 'MC_ERR_FORBIDDEN' });
    const extra = await app.inject({
      method: 'GET',
      url: `${p}?expires=${expires}&signature=${signature}&x=1`,
    });
    assert.equal(extra.statusCode, 422);
  });
});
