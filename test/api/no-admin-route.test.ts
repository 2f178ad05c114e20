import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

// Operator actions are CLI commands on the database: no HTTP route runs a command line, so neither the
// API key nor a loopback address (a reverse proxy on the same host) can reach one.
test('no administrative route answers, whatever the key or the address', async () => {
  const { app } = await embeddedApp();
  try {
    for (const [method, url] of [
      ['POST', '/admin/jobs'],
      ['GET', '/admin/jobs/1'],
    ] as const) {
      const res = await app.inject({
        method,
        url,
        remoteAddress: '127.0.0.1',
        headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
        payload: method === 'POST' ? { kind: 'pipeline', argv: ['run'] } : undefined,
      });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
    }
    const spec = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    assert.deepEqual(
      Object.keys(spec.paths).filter((p) => p.startsWith('/admin')),
      [],
    );
  } finally {
    await app.close();
  }
});
