import { type TSchema, Type } from 'typebox';

/** `T` or JSON null (OpenAPI 3.1: `anyOf [T, {type: null}]`). */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

export const NullableNumber = (description: string) => Nullable(Type.Number(), description);
export const NullableInteger = (description: string) => Nullable(Type.Integer(), description);
export const NullableString = (description: string) => Nullable(Type.String(), description);

/** ISO 8601 timestamp in UTC, e.g. `2024-05-11T14:00:00.000Z`. */
export const DateTime = (description = 'ISO 8601 timestamp, UTC') =>
  Type.String({ format: 'date-time', description });

/**
 * A response entry: the shape, what the status means (never "Default Response") and examples, each
 * validated against the shape by test/api/openapi-examples.test.ts.
 */
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
