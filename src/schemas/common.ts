import {
  type TLiteral,
  type TObjectOptions,
  type TProperties,
  type TSchema,
  type TSchemaOptions,
  type TUnion,
  Type,
} from 'typebox';

/** `T` or JSON null (OpenAPI 3.1: `anyOf [T, {type: null}]`). */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

export const NullableNumber = (description: string) => Nullable(Type.Number(), description);
export const NullableInteger = (description: string) => Nullable(Type.Integer(), description);
export const NullableString = (description: string) => Nullable(Type.String(), description);

export const Proba = (what: string) =>
  Type.Number({ minimum: 0, maximum: 1, description: `${what} probability` });

/** An object without unknown fields. */
export const Strict = <P extends TProperties>(properties: P, options: TObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** A union of string literals: `anyOf` of `const`s, which a 422 folds into "must be one of". */
export const Literals = <const V extends string[]>(values: V, options?: TSchemaOptions) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as TUnion<{ [K in keyof V]: TLiteral<V[K]> }>;

/** ISO 8601 timestamp in UTC, e.g. `2024-05-11T14:00:00.000Z`. */
export const DateTime = (description = 'ISO 8601 timestamp, UTC') =>
  Type.String({ format: 'date-time', description });

/** A response entry: shape, description (never "Default Response") and examples, validated by tests. */
export function respond<T extends TSchema>(
  schema: T,
  description: string,
  examples: readonly unknown[],
): T & { description: string; examples: unknown[] } {
  return { ...schema, description, examples: [...examples] };
}

/** A response without a body (304, 307): its description only. */
export function noBody(description: string) {
  return { type: 'null', description } as const;
}

/** A documented route's options: its schema (summary, params, query, responses…) under its one tag. */
export function route<S extends object>(tag: string, schema: S): { schema: { tags: string[] } & S } {
  return { schema: { tags: [tag], ...schema } };
}
