import { Ajv, type Options } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler, preHandlerHookHandler, RouteOptions } from 'fastify';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = formats.default;

const COMMON: Options = {
  removeAdditional: false,
  allErrors: true,
  useDefaults: true,
  // Real NaN/±Infinity never pass a number type (JSON cannot carry them, but 1e400 parses to Infinity).
  strictNumbers: true,
  // Fastify's own schemas and swagger's carry keywords Ajv's strict mode would refuse.
  strict: false,
};

/**
 * Validators per request part: JSON bodies are validated as sent (no coercion: `{"match_id": true}`
 * or `"1"` is a 422, never match 1); path and query strings are coerced to the declared types, as the
 * spec's integer parameters need (`coerceTypes: 'array'` also turns `?x=1` into `[1]` for arrays).
 * Fastify's default compiler coerces every part alike.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  return ({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object) as ReturnType<
      FastifySchemaCompiler<unknown>
    >;
}

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  anyOf?: JsonSchemaLike[];
  items?: JsonSchemaLike;
  hide?: boolean;
}

function isNumeric(s: JsonSchemaLike | undefined): boolean {
  if (!s) return false;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('number') || types.includes('integer')) return true;
  return (s.anyOf ?? []).some(isNumeric) || isNumeric(s.items);
}

const PARTS = [
  ['params', 'params'],
  ['querystring', 'query'],
] as const;

/** A number that is not finite (strings and other values are the schema's business). */
function notFinite(x: unknown): boolean {
  return typeof x === 'number' && !Number.isFinite(x);
}

/**
 * Ajv coerces the strings "Infinity", "-Infinity" and "1e400" to numbers that pass `integer`,
 * `minimum` and `maximum` (its range checks skip non-finite numbers). Routes with a numeric path or
 * query field get a preHandler that rejects a non-finite value with the usual 422; it reads only the
 * fields the route declares numeric, and routes without any get no hook.
 */
function finiteNumberCheck(route: RouteOptions): preHandlerHookHandler | undefined {
  const schema = route.schema as Record<string, JsonSchemaLike | undefined> | undefined;
  if (!schema) return undefined;
  const checks: { part: 'params' | 'query'; context: string; name: string }[] = [];
  for (const [context, part] of PARTS) {
    for (const [name, prop] of Object.entries(schema[context]?.properties ?? {})) {
      if (isNumeric(prop)) checks.push({ part, context, name });
    }
  }
  if (checks.length === 0) return undefined;
  return function finiteNumbers(request, _reply, done) {
    for (const c of checks) {
      const v = (request[c.part] as Record<string, unknown> | undefined)?.[c.name];
      if (notFinite(v) || (Array.isArray(v) && v.some(notFinite))) {
        const err = Object.assign(new Error('must be a finite number'), {
          statusCode: 400,
          validation: [{ instancePath: `/${c.name}`, keyword: 'type', message: 'must be a finite number' }],
          validationContext: c.context,
        });
        return done(err);
      }
    }
    done();
  };
}

function hooksOf<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Strict validation for every route: a documented route without query parameters still rejects
 * unknown ones (422), as the routes that declare a querystring do with `additionalProperties: false`;
 * numeric path/query fields must be finite.
 */
export function registerStrictValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler());
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; querystring?: unknown } | undefined;
    if (schema && !schema.hide && schema.querystring === undefined) {
      schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
    }
    const check = finiteNumberCheck(route);
    if (check) route.preHandler = [...hooksOf(route.preHandler), check];
  });
}
