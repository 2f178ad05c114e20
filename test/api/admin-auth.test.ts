// The admin routes have their own credential. The client's address grants nothing (behind a reverse
// proxy on the same host every request comes from loopback), nor does the API key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AdminJob, AdminJobs } from '../../src/api/context.js';
import { adminKeyMatches } from '../../src/api/plugins/admin-key.js';
import { startEnv } from '../../src/cli/start.js';
import { parseConfig } from '../../src/config.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

const ADMIN_KEY = 'test-admin-key-fedcba9876543210';
const BODY = JSON.stringify({ kind: 'pipeline', argv: ['run'] });
const JSON_CT = { 'content-type': 'application/json' };

/** A job runner that records what it was handed (it runs nothing). */
function recordingJobs(): AdminJobs & { submitted: AdminJob[] } {
  const submitted: AdminJob[] = [];
  return {
    submitted,
    submit(kind, argv, origin = 'cli') {
      const job: AdminJob = {
        id: `job-${submitted.length + 1}`,
        kind,
        argv,
        origin,
        state: 'queued',
        exit_code: null,
        stdout: '',
        stderr: '',
        created_at: new Date().toISOString(),
        started_at: null,
        finished_at: null,
      };
      submitted.push(job);
      return job;
    },
    get: (id) => submitted.find((j) => j.id === id),
  };
}

describe('admin routes with ADMIN_KEY set', () => {
  let app: FastifyInstance;
  let port: number;
  const jobs = recordingJobs();
  before(async () => {
    ({ app } = await embeddedApp({ ADMIN_KEY }, { jobs }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const a = app.server.address();
    port = typeof a === 'object' && a ? a.port : 0;
  });
  after(async () => app?.close());

  /** Over a real loopback socket: what a reverse proxy on the same host would forward. */
  const post = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${port}/admin/jobs`, {
      method: 'POST',
      headers: { ...JSON_CT, ...headers },
      body: BODY,
    });

  test('from loopback without a key, with the API key, or with a wrong key: 401 MC_ERR_ADMIN_UNAUTHORIZED', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-api-key': TEST_API_KEY },
      { 'x-admin-key': TEST_API_KEY },
      { 'x-admin-key': `${ADMIN_KEY}x` },
      { 'x-admin-key': ADMIN_KEY.slice(0, -1) },
      { 'x-admin-key': '' },
      { 'x-admin-key': 'wrong', 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' },
    ];
    for (const headers of attempts) {
      const res = await post(headers);
      const body = (await res.json()) as { code: string };
      assert.deepEqual([res.status, body.code], [401, 'MC_ERR_ADMIN_UNAUTHORIZED'], JSON.stringify(headers));
    }
    const get = await fetch(`http://127.0.0.1:${port}/admin/jobs/job-1`, {
      headers: { 'x-api-key': TEST_API_KEY },
    });
    assert.equal(get.status, 401);
    assert.equal(jobs.submitted.length, 0, 'nothing was handed over');
  });

  test('the key is checked before the body: an invalid body without the key is 401, not 422', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/admin/jobs`, {
      method: 'POST',
      headers: JSON_CT,
      body: '{"kind":"rm"}',
    });
    assert.equal(res.status, 401);
  });

  test('with X-Admin-Key (or the admin key in X-API-Key, as the CLI hand-off sends it): 202, then readable', async () => {
    const res = await post({ 'x-admin-key': ADMIN_KEY });
    assert.equal(res.status, 202);
    const job = (await res.json()) as { id: string; argv: string[] };
    assert.deepEqual(job.argv, ['run']);
    const viaApiHeader = await post({ 'x-api-key': ADMIN_KEY });
    assert.equal(viaApiHeader.status, 202);
    const got = await fetch(`http://127.0.0.1:${port}/admin/jobs/${job.id}`, {
      headers: { 'x-admin-key': ADMIN_KEY },
    });
    assert.equal(got.status, 200);
    assert.equal(((await got.json()) as { id: string }).id, job.id);
    assert.equal(jobs.submitted.length, 2);
  });

  test('OpenAPI: the admin routes name the AdminKeyAuth scheme (header X-Admin-Key) and its 401', async () => {
    const doc = (await app.inject('/openapi.json')).json() as {
      components: { securitySchemes: Record<string, { name: string }> };
      paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>>;
    };
    assert.equal(doc.components.securitySchemes.AdminKeyAuth?.name, 'X-Admin-Key');
    assert.deepEqual(doc.paths['/admin/jobs']?.post?.security, [{ AdminKeyAuth: [] }]);
    assert.ok(doc.paths['/admin/jobs']?.post?.responses['401']);
  });
});

test('without ADMIN_KEY the admin routes are not served: 404 for everyone, loopback and API key included', async () => {
  const jobs = recordingJobs();
  const { app } = await embeddedApp({}, { jobs });
  try {
    for (const headers of [{}, { 'x-api-key': TEST_API_KEY }]) {
      const res = await app.inject({
        method: 'POST',
        url: '/admin/jobs',
        headers: { ...JSON_CT, ...headers },
        payload: BODY,
      });
      assert.equal(res.statusCode, 404, JSON.stringify(headers));
    }
    assert.equal(jobs.submitted.length, 0);
  } finally {
    await app.close();
  }
});

test('adminKeyMatches: equal keys only, whatever the lengths', () => {
  assert.equal(adminKeyMatches(ADMIN_KEY, ADMIN_KEY), true);
  for (const k of ['', ADMIN_KEY.slice(0, 8), `${ADMIN_KEY}0`, ADMIN_KEY.toUpperCase(), 'x'.repeat(1000)])
    assert.equal(adminKeyMatches(k, ADMIN_KEY), false, k);
});

test('ADMIN_KEY: at least 16 printable ASCII characters, never the API key', () => {
  assert.equal(parseConfig({ ADMIN_KEY }).adminKey, ADMIN_KEY);
  assert.equal(parseConfig({}).adminKey, undefined);
  for (const bad of ['short', 'has a space in it 0123', ADMIN_KEY.replace('t', 'é')])
    assert.throws(
      () => parseConfig({ ADMIN_KEY: bad }),
      { code: 'MC_ERR_CONFIG', message: /ADMIN_KEY/ },
      bad,
    );
  assert.throws(() => parseConfig({ API_KEY: ADMIN_KEY, ADMIN_KEY }), {
    code: 'MC_ERR_CONFIG',
    message: /ADMIN_KEY: must differ from API_KEY/,
  });
});

test('matchcast start listens on 127.0.0.1 unless --host or HOST says otherwise; serve keeps 0.0.0.0', () => {
  const host = (env: Record<string, string>, o: { host?: string; port?: string } = {}) =>
    parseConfig(startEnv(env, o)).host;
  assert.equal(host({}), '127.0.0.1');
  assert.equal(host({ HOST: '0.0.0.0' }), '0.0.0.0');
  assert.equal(host({ HOST: '0.0.0.0' }, { host: '192.0.2.1' }), '192.0.2.1');
  assert.equal(host({}, { host: '::' }), '::');
  assert.equal(parseConfig(startEnv({}, { port: '9001' })).port, 9001);
  assert.equal(parseConfig({}).host, '0.0.0.0', 'serve (containers, deploy/) binds every interface');
});
