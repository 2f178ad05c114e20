// Bad-input fuzz of every route: the routes of /openapi.json plus the spec table,
// hit with generated path parameters, query strings, bodies, content types and API-key headers, sent
// as raw bytes. Properties: no 5xx at all (so no 500), no hang (per-request timeout), every rejection
// a 4xx with a JSON `detail`; report names and /files keys never leave their bucket.
// FUZZ_SEED / FUZZ_SECONDS (default 25) vary the run; the seed and the count are printed.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type EmbeddedApp, startEmbeddedApp } from '../contract/harness.js';
import { HangError, type RawRequest, type RawResponse, rawRequest } from './raw-http.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 25);
const TIMEOUT_MS = 35_000; // above the 30 s live bound: anything slower is a hang
const CONCURRENCY = 8;

let app: EmbeddedApp;
let port: number;
let routes: Array<{ method: string; template: string }> = [];
let secrets: string[] = [];

interface Outcome {
  req: RawRequest;
  res?: RawResponse;
  error?: Error;
}

const tried = { total: 0, byStatus: new Map<number, number>(), hangs: 0, maxMs: 0 };
const failures: string[] = [];

function describe(req: RawRequest): string {
  return `${req.method} ${req.target.slice(0, 160)} [${(req.headers ?? []).map(([k, v]) => `${k}: ${String(v).slice(0, 40)}`).join('; ')}]`;
}

/** The properties every response must have. */
function check(o: Outcome): void {
  tried.total++;
  if (o.error) {
    if (o.error instanceof HangError) tried.hangs++;
    failures.push(`${o.error.message} ← ${describe(o.req)}`);
    return;
  }
  const res = o.res!;
  tried.byStatus.set(res.status, (tried.byStatus.get(res.status) ?? 0) + 1);
  tried.maxMs = Math.max(tried.maxMs, res.ms);
  const text = res.body.toString('utf8');
  for (const s of secrets) if (text.includes(s)) failures.push(`secret in body ← ${describe(o.req)}`);
  if (res.status >= 500) {
    failures.push(`${res.status} ${text.slice(0, 200)} ← ${describe(o.req)}`);
    return;
  }
  if (res.status >= 400) {
    let detail: unknown;
    try {
      detail = (JSON.parse(text) as { detail?: unknown }).detail;
    } catch {
      failures.push(
        `${res.status} without a JSON body (${res.headers['content-type']}): ${text.slice(0, 120)} ← ${describe(o.req)}`,
      );
      return;
    }
    const clear =
      (typeof detail === 'string' && detail.length > 0) || (Array.isArray(detail) && detail.length > 0);
    if (!clear)
      failures.push(`${res.status} with no clear detail: ${text.slice(0, 200)} ← ${describe(o.req)}`);
    if (!(res.headers['content-type'] ?? '').includes('application/json'))
      failures.push(`${res.status} content-type ${res.headers['content-type']} ← ${describe(o.req)}`);
  }
}

async function runAll(reqs: RawRequest[], extra?: (o: Outcome) => void): Promise<void> {
  let i = 0;
  const worker = async () => {
    while (i < reqs.length) {
      const req = reqs[i++]!;
      const o: Outcome = { req };
      try {
        o.res = await rawRequest(port, req, TIMEOUT_MS);
      } catch (err) {
        o.error = err as Error;
      }
      check(o);
      extra?.(o);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

// ---- generators -------------------------------------------------------------------------------

/** Percent-encodes every byte outside the unreserved set, so arbitrary unicode can sit in a target. */
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const nastyParam = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '-9223372036854775809',
    '9'.repeat(30),
    '1e308',
    '1.5',
    'NaN',
    'Infinity',
    '0x10',
    ' 1',
    '%00',
    '1%00',
    '%2e%2e',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '..%2f..%2f..%2fetc%2fpasswd',
    '..%252f..%252fetc%252fpasswd',
    '%2F',
    '%5c..%5c..%5cwindows',
    '%ZZ',
    '%',
    '%c0%ae%c0%ae%2f',
    '%E2%80%AE',
    'a'.repeat(199),
    'a'.repeat(201),
    '1'.repeat(5000),
    'drift_report_20260101T000000Z.html%00.png',
    '..',
    '.',
    '~',
    'null',
    'undefined',
    '[]',
    '{}',
  ),
  fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
  fc.string({ maxLength: 40 }).map(enc),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(enc),
  fc.string({ unit: 'binary', maxLength: 12 }).map(enc),
);

const queryKey = fc.oneof(
  fc.constantFrom(
    'year',
    'month',
    'limit',
    'offset',
    'stage',
    'expires',
    'signature',
    '__proto__',
    'constructor',
  ),
  fc.string({ minLength: 1, maxLength: 12 }).map(enc),
);
const queryValue = fc.oneof(
  nastyParam,
  fc.constantFrom('champion', 'challenger', 'candidate', '', 'true', '2024', '13'),
);
const queryString = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** API-key headers: missing, empty, right, wrong, long, non-ASCII bytes (latin1 and raw UTF-8), repeated. */
function keyHeaders(): fc.Arbitrary<Array<[string, string | Buffer]>> {
  return fc.oneof(
    fc.constant([]),
    fc.constant([['X-API-Key', '']]),
    fc.constant([['X-API-Key', app.apiKey]]),
    fc.constant([['X-API-Key', app.apiKey]]),
    fc.constant([
      ['X-API-Key', app.apiKey],
      ['X-API-Key', app.apiKey],
    ]),
    fc.constant([['X-API-Key', 'k'.repeat(8000)]]),
    fc.constant([['X-API-Key', Buffer.from('ключ-🔑', 'utf8')]]),
    fc.constant([['X-API-Key', Buffer.from([0xff, 0xfe, 0x80])]]),
    fc.constant([['X-API-Key', `${app.apiKey} `]]),
    fc
      .string({ maxLength: 64 })
      .map(
        (s) => [['X-API-Key', Buffer.from(s.replace(/[\r\n\0]/g, ''), 'utf8')]] as Array<[string, Buffer]>,
      ),
  ) as fc.Arbitrary<Array<[string, string | Buffer]>>;
}

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
  'application/json; charset=latin1',
);

function bodies(): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.json({ maxDepth: 3 }),
    fc
      .record({ match_id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)) }, { requiredKeys: [] })
      .map((o) => JSON.stringify(o)),
    fc
      .record({
        match_id: fc.constant(app.futureMatchId),
        stage: fc.oneof(fc.constant('champion'), fc.string()),
        extra: fc.anything(),
      })
      .map((o) => JSON.stringify(o)),
    fc.constantFrom(
      '{',
      '{"match_id":',
      '[]',
      'null',
      '"x"',
      '{"match_id":1}}',
      '\u0000',
      '{"__proto__":{"admin":true},"match_id":1}',
    ),
    fc.constant(JSON.stringify({ match_id: 1, pad: 'x'.repeat(app.config.bodyLimitBytes + 1) })),
    fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)),
  );
}

function concrete(template: string): fc.Arbitrary<string> {
  const parts = template.split(/(\{[^}]+\}|\*)/);
  return fc
    .tuple(...parts.map((p) => (p.startsWith('{') || p === '*' ? nastyParam : fc.constant(p))))
    .map((xs) => xs.join(''));
}

// ---- the run ------------------------------------------------------------------------------------

before(async () => {
  app = await startEmbeddedApp();
  port = Number(new URL(app.url).port);
  const doc = (await (await app.fetch('/openapi.json')).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const fromDoc = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => ({ method: m.toUpperCase(), template: p })),
  );
  // The spec table (§4) and the undocumented routes that exist (UI, signed files, docs).
  const extra = [
    '/',
    '/monitoring/reports/{filename}',
    '/files/{bucket}/*',
    '/ui/*',
    '/docs/*',
    '/predict/async/{job_id}',
    '/predict/batch',
    '/predict',
  ];
  const all = [...fromDoc, ...extra.map((template) => ({ method: 'GET', template }))];
  all.push({ method: 'POST', template: '/predict' }, { method: 'POST', template: '/predict/batch' });
  const key = (r: { method: string; template: string }) => `${r.method} ${r.template}`;
  routes = [...new Map(all.map((r) => [key(r), r])).values()];
  secrets = [
    app.apiKey,
    (await readFile(path.join(app.config.dataDir, 'url-signing.secret'), 'utf8').catch(() => '')).trim(),
  ].filter((s) => s.length >= 16);
});

after(async () => {
  await app?.close();
  const statuses = [...tried.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  console.log(
    `fuzz: seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${tried.total} inputs over ${routes.length} routes; statuses ${statuses.join(' ')}; hangs ${tried.hangs}; slowest ${tried.maxMs.toFixed(0)} ms; failures ${failures.length}`,
  );
  const kinds = new Map<string, string>();
  for (const f of failures) kinds.set(f.slice(0, 48), f);
  for (const f of kinds.values()) console.log(`fuzz failure: ${f.slice(0, 600)}`);
});

test('every route: generated paths, queries, bodies, content types and API keys → no 5xx, no hang, 4xx with detail', async () => {
  assert.ok(routes.length >= 20, `routes: ${routes.map((r) => `${r.method} ${r.template}`).join(', ')}`);
  const deadline = Date.now() + SECONDS * 1000;
  let round = 0;
  while (Date.now() < deadline) {
    const reqs: RawRequest[] = [];
    for (const r of routes) {
      const gen = fc.record({
        target: fc.tuple(concrete(r.template), queryString).map(([p, q]) => p + q),
        headers: keyHeaders(),
        ct: contentTypes,
        body: bodies(),
        withBody: fc.boolean(),
      });
      for (const g of fc.sample(gen, { seed: SEED + round * 7919 + reqs.length, numRuns: 6 })) {
        const headers = [...g.headers];
        const send = r.method === 'POST' || g.withBody;
        if (send && g.ct) headers.push(['Content-Type', g.ct]);
        reqs.push({ method: r.method, target: g.target, headers, body: send ? g.body : undefined });
      }
    }
    // Header oddities independent of the route: many headers, a huge header, odd methods.
    reqs.push(
      {
        method: 'GET',
        target: '/predict/cards/',
        headers: [
          ['X-API-Key', app.apiKey],
          ['X-Pad', 'p'.repeat(20_000)],
        ],
      },
      {
        method: 'GET',
        target: '/healthcheck/',
        headers: Array.from({ length: 300 }, (_, i) => [`X-H${i}`, 'v'] as [string, string]),
      },
      { method: 'DELETE', target: '/predict/cards/', headers: [['X-API-Key', app.apiKey]] },
      { method: 'PUT', target: '/livescores/' },
      { method: 'OPTIONS', target: '/predict/cards/' },
      { method: 'HEAD', target: '/healthcheck/' },
      { method: 'GET', target: '/predict/%2e%2e/healthcheck/' },
      { method: 'GET', target: '//predict//cards//', headers: [['X-API-Key', 'wrong']] },
      { method: 'GET', target: '/Predict/Cards/' },
    );
    await runAll(reqs);
    round++;
  }
  assert.ok(tried.total > 500, `inputs tried: ${tried.total}`);
  assert.equal(tried.hangs, 0, 'hangs');
  assert.deepEqual(failures.slice(0, 25), [], `${failures.length} failures`);
});

test('report filenames and /files keys cannot escape their bucket', async () => {
  const listed = (await (await app.fetch('/monitoring/reports')).json()) as Array<{
    filename: string;
    url: string;
  }>;
  assert.ok(listed.length > 0);
  const signed = new URL(listed[0]!.url, app.url); // /files/reports/<name>?expires=…&signature=…
  assert.match(signed.pathname, /^\/files\/reports\//);
  const good = await rawRequest(port, { method: 'GET', target: signed.pathname + signed.search }, TIMEOUT_MS);
  assert.equal(good.status, 200, 'the signed link itself works');

  const escapes = [
    '..%2f..%2furl-signing.secret',
    '%2e%2e%2f%2e%2e%2furl-signing.secret',
    '..%2F..%2Fapi-key',
    '%2e%2e%2fdrift_latest.json',
    '..%5c..%5curl-signing.secret',
    '%252e%252e%252furl-signing.secret',
    '....%2f%2f....%2f%2furl-signing.secret',
    '%2fetc%2fpasswd',
    'drift_latest.json',
    'roi_by_region.csv',
    `${listed[0]!.filename}%00.png`,
    `..%2f${listed[0]!.filename}`,
    `${listed[0]!.filename}%2f..%2f..%2f..%2furl-signing.secret`,
    '%c0%ae%c0%ae%2furl-signing.secret',
  ];
  const reqs: RawRequest[] = [];
  for (const e of escapes) {
    reqs.push({ method: 'GET', target: `/monitoring/reports/${e}` });
    reqs.push({ method: 'GET', target: `/monitoring/reports/${e.replace(/%2f/gi, '/')}` });
    // A valid signature for one key must not open another key, bucket or path.
    for (const bucket of ['reports', 'models', 'raw-data', '..', '%2e%2e']) {
      reqs.push({ method: 'GET', target: `/files/${bucket}/${e}${signed.search}` });
      reqs.push({ method: 'GET', target: `/files/${bucket}/${e.replace(/%2f/gi, '/')}${signed.search}` });
    }
  }
  reqs.push({ method: 'GET', target: `/files/models/${listed[0]!.filename}${signed.search}` });
  reqs.push({
    method: 'GET',
    target: `/files/reports/..%2freports%2f${listed[0]!.filename}${signed.search}`,
  });
  const leaks: string[] = [];
  await runAll(reqs, (o) => {
    if (!o.res) return;
    const isReport = o.req.target.startsWith('/monitoring/reports/');
    if (isReport && o.res.status < 400) leaks.push(`${o.res.status} ${o.req.target}`);
    if (!isReport && o.res.status < 400) leaks.push(`${o.res.status} ${o.req.target}`);
  });
  assert.deepEqual(leaks, []);
  assert.deepEqual(failures, []);
});
