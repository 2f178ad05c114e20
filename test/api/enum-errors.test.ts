// A 422 for a value outside an enum lists the allowed values, once per field: TypeBox writes an enum
// as a union of literals, which Ajv reports as one failed `const` per literal plus a bare `anyOf`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { toFieldErrors } from '../../src/api/plugins/errors.js';
import { embeddedApp, TEST_API_KEY } from '../helpers/app-context.js';

let app: FastifyInstance;
before(async () => {
  ({ app } = await embeddedApp());
});
after(async () => {
  await app?.close();
});

test('a real route: a bad enum value names the field and its allowed values in one entry', async () => {
  const r = await app.inject({
    url: '/predict/region-roi/markets/?market=1x2',
    headers: { 'x-api-key': TEST_API_KEY },
  });
  assert.equal(r.statusCode, 422);
  const body = r.json() as { code: string; detail: Array<{ loc: unknown[]; msg: string; type: string }> };
  assert.equal(body.code, 'MC_ERR_VALIDATION');
  const market = body.detail.filter((d) => d.loc.join('.') === 'query.market');
  assert.deepEqual(market, [
    { loc: ['query', 'market'], msg: "must be one of: 'ou25', 'btts'", type: 'enum' },
  ]);
});

test('toFieldErrors: literal unions and enum keywords fold; other unions and errors keep their entries', () => {
  const errors = [
    {
      instancePath: '/stage',
      schemaPath: '#/properties/stage/anyOf/0/const',
      keyword: 'const',
      params: { allowedValue: 'champion' },
      message: 'must be equal to constant',
    },
    {
      instancePath: '/stage',
      schemaPath: '#/properties/stage/anyOf/1/const',
      keyword: 'const',
      params: { allowedValue: 'challenger' },
      message: 'must be equal to constant',
    },
    {
      instancePath: '/stage',
      schemaPath: '#/properties/stage/anyOf/2/type',
      keyword: 'type',
      params: { type: 'null' },
      message: 'must be null',
    },
    {
      instancePath: '/stage',
      schemaPath: '#/properties/stage/anyOf',
      keyword: 'anyOf',
      params: {},
      message: 'must match a schema in anyOf',
    },
    {
      instancePath: '/limit',
      schemaPath: '#/properties/limit/maximum',
      keyword: 'maximum',
      params: { limit: 10 },
      message: 'must be <= 10',
    },
    {
      instancePath: '/kind',
      schemaPath: '#/properties/kind/enum',
      keyword: 'enum',
      params: { allowedValues: ['a', 2] },
      message: 'must be equal to one of the allowed values',
    },
    {
      instancePath: '/id',
      schemaPath: '#/properties/id/anyOf/0/type',
      keyword: 'type',
      params: { type: 'integer' },
      message: 'must be integer',
    },
    {
      instancePath: '/id',
      schemaPath: '#/properties/id/anyOf/1/const',
      keyword: 'const',
      params: { allowedValue: 'latest' },
      message: 'must be equal to constant',
    },
    {
      instancePath: '/id',
      schemaPath: '#/properties/id/anyOf',
      keyword: 'anyOf',
      params: {},
      message: 'must match a schema in anyOf',
    },
  ];
  const fields = toFieldErrors(errors, 'querystring');
  assert.deepEqual(fields.slice(0, 3), [
    { loc: ['query', 'stage'], msg: "must be one of: 'champion', 'challenger', null", type: 'enum' },
    { loc: ['query', 'limit'], msg: 'must be <= 10', type: 'maximum' },
    { loc: ['query', 'kind'], msg: "must be one of: 'a', 2", type: 'enum' },
  ]);
  // integer | 'latest' is not an enum: its errors stay as they were.
  assert.deepEqual(
    fields.slice(3).map((f) => f.type),
    ['type', 'const', 'anyOf'],
  );
});
