import { Ajv, type Options, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { errorResponses } from '../../schemas/index.js';

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

/** Bodies validated as sent (`{"match_id": "1"}` is a 422); path and query strings coerced. */
function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return strict.compile(schema as object) as Validator;
    const validate = coercing.compile(schema as object);
    const numeric =
      httpPart === 'params' || httpPart === 'querystring' ? numericFields(schema as JsonSchemaLike) : [];
    return (numeric.length === 0 ? validate : withFiniteCheck(validate, numeric)) as Validator;
  };
}

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  anyOf?: JsonSchemaLike[];
  items?: JsonSchemaLike;
}

function isNumeric(s: JsonSchemaLike | undefined): boolean {
  if (!s) return false;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('number') || types.includes('integer')) return true;
  return (s.anyOf ?? []).some(isNumeric) || isNumeric(s.items);
}

function numericFields(schema: JsonSchemaLike): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, prop]) => isNumeric(prop))
    .map(([name]) => name);
}

/** A number that is not finite (strings and other values are the schema's business). */
function notFinite(x: unknown): boolean {
  return typeof x === 'number' && !Number.isFinite(x);
}

/**
 * Ajv coerces "Infinity" and "1e400" to numbers that pass `integer` and `maximum`. Checked inside the
 * validator (no extra hook), so the schemas must stay synchronous: an `$async` one is not awaited here.
 */
function withFiniteCheck(validate: ValidateFunction, fields: readonly string[]): ValidateFunction {
  const check = ((data: Record<string, unknown>, ctx?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, ctx)) {
      check.errors = validate.errors;
      return false;
    }
    for (const name of fields) {
      const v = data?.[name];
      if (notFinite(v) || (Array.isArray(v) && v.some(notFinite))) {
        check.errors = [
          {
            instancePath: `/${name}`,
            schemaPath: '',
            keyword: 'type',
            params: {},
            message: 'must be a finite number',
          },
        ];
        return false;
      }
    }
    check.errors = null;
    return true;
  }) as ValidateFunction;
  // Fastify hands Ajv functions (those with a schemaEnv) the parent object, so coercion can write back.
  check.schemaEnv = validate.schemaEnv;
  check.schema = validate.schema;
  return check;
}

/** Unknown query fields are refused on every route; every OpenAPI entry gets 422 and 500. */
export function registerStrictValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler());
  const standard = errorResponses('MC_ERR_VALIDATION', 'MC_ERR_INTERNAL');
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; querystring?: unknown; response?: object } | undefined;
    if (!schema || schema.hide) return;
    schema.querystring ??= { type: 'object', properties: {}, additionalProperties: false };
    schema.response = { ...standard, ...schema.response };
  });
}
