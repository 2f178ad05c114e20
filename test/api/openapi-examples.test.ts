// The OpenAPI description is usable by a client generator without reading the code:
// walks every operation of /openapi.json — routes added later included — and checks that each status
// has a real description, a schema and examples that validate against it; 422 and 500 on every
// route, 401 on every key-protected one, and one error-body schema for every error status.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { isProtectedPath } from '../../src/api/plugins/auth.js';
import { ErrorBody } from '../../src/schemas/errors.js';
import { embeddedApp } from '../helpers/app-context.js';

interface Media {
  schema?: Record<string, unknown>;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Response {
  description?: string;
  content?: Record<string, Media>;
}
interface Operation {
  summary?: string;
  description?: string;
  security?: unknown[];
  responses: Record<string, Response>;
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

let app: FastifyInstance;
let doc: Doc;

before(async () => {
  ({ app } = await embeddedApp());
  doc = (await app.inject('/openapi.json')).json() as Doc;
});
after(async () => {
  await app?.close();
});

function operations(): { method: string; path: string; op: Operation }[] {
  const out: { method: string; path: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

function examplesOf(media: Media): unknown[] {
  const list = media.examples ? Object.values(media.examples).map((e) => e.value) : [];
  return media.example === undefined ? list : [media.example, ...list];
}

/** Strips what OpenAPI adds around a JSON Schema so Ajv (draft-07 + formats) can compile it. */
function compile(ajv: Ajv, schema: Record<string, unknown>) {
  return ajv.compile(JSON.parse(JSON.stringify(schema)) as object);
}

test('the description is OpenAPI 3.1 and lists the documented routes', () => {
  assert.match(doc.openapi, /^3\.1\./);
  assert.ok(operations().length >= 15, `operations: ${operations().length}`);
});

test('every status of every operation has a real description, a schema and a valid example', () => {
  const ajv = formats.default(new Ajv({ strict: false, allErrors: true }));
  const problems: string[] = [];
  let checked = 0;
  for (const { method, path, op } of operations()) {
    const name = `${method} ${path}`;
    if (!op.summary && !op.description) problems.push(`${name}: no summary`);
    for (const [status, res] of Object.entries(op.responses)) {
      const where = `${name} ${status}`;
      if (!res.description || res.description === 'Default Response')
        problems.push(`${where}: description "${res.description}"`);
      // 304 and 307 carry no body; every other status documents its payload.
      if (status === '304' || status === '307') continue;
      const media = Object.values(res.content ?? {})[0];
      if (!media?.schema) {
        problems.push(`${where}: no schema`);
        continue;
      }
      const examples = examplesOf(media);
      if (examples.length === 0) problems.push(`${where}: no example`);
      const validate = compile(ajv, media.schema);
      for (const example of examples) {
        checked++;
        if (!validate(example))
          problems.push(`${where}: example does not match: ${ajv.errorsText(validate.errors)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 40, `examples validated: ${checked}`);
});

test('422 and 500 on every operation, 401 on every key-protected one and only there', () => {
  const problems: string[] = [];
  for (const { method, path, op } of operations()) {
    const name = `${method} ${path}`;
    for (const s of ['422', '500']) if (!op.responses[s]) problems.push(`${name}: no ${s}`);
    const protectedRoute = isProtectedPath(path, false);
    if (protectedRoute !== Boolean(op.responses['401'])) problems.push(`${name}: 401 is ${!protectedRoute}`);
    if (protectedRoute !== Boolean(op.security?.length)) problems.push(`${name}: security`);
  }
  assert.deepEqual(problems, []);
});

test('one error-body schema: every 4xx/5xx answer is the ErrorBody of src/schemas', () => {
  const expected = JSON.parse(JSON.stringify(ErrorBody)) as Record<string, unknown>;
  const strip = (s: Record<string, unknown>) => {
    const { description: _d, examples: _e, example: _x, ...rest } = s;
    return rest;
  };
  // A probe's "not ready" is its answer, not an error: it has its own documented body.
  const probes = new Set(['GET /readyz 503']);
  const problems: string[] = [];
  for (const { method, path, op } of operations()) {
    for (const [status, res] of Object.entries(op.responses)) {
      if (Number(status) < 400 || probes.has(`${method} ${path} ${status}`)) continue;
      const schema = Object.values(res.content ?? {})[0]?.schema;
      if (!schema || JSON.stringify(strip(schema)) !== JSON.stringify(strip(expected)))
        problems.push(`${method} ${path} ${status}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the validation test can fail: a wrong example is reported', () => {
  const ajv = formats.default(new Ajv({ strict: false }));
  const op = doc.paths['/predict/precomputed/{match_id}']?.get;
  assert.ok(op, 'precomputed route documented');
  const media = Object.values(op.responses['200']?.content ?? {})[0]!;
  const validate = compile(ajv, media.schema!);
  assert.equal(validate(examplesOf(media)[0]), true);
  assert.equal(validate({ ...(examplesOf(media)[0] as object), proba_home: 'high' }), false);
});
