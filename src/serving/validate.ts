/** Thrown when an artifact fails validation; the caller keeps serving the previous copy. */
export class ArtifactInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactInvalidError';
  }
}

function fail(row: number, column: string, what: string, value: unknown): never {
  const shown = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  throw new ArtifactInvalidError(`row ${row}: column ${column} ${what}, got ${shown?.slice(0, 80)}`);
}

/** Column readers: each checks the type of one cell and names row and column when it is wrong. */
export const cell = {
  int(row: Record<string, unknown>, i: number, column: string, nullable: boolean): number | null {
    let v = row[column];
    if (
      typeof v === 'bigint' &&
      v >= BigInt(Number.MIN_SAFE_INTEGER) &&
      v <= BigInt(Number.MAX_SAFE_INTEGER)
    ) {
      v = Number(v);
    }
    if (v === null && nullable) return null;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) fail(i, column, 'must be an integer', v);
    return v;
  },
  num(row: Record<string, unknown>, i: number, column: string, nullable: boolean): number | null {
    const v = row[column];
    if (v === null && nullable) return null;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(i, column, 'must be a finite number', v);
    return v;
  },
  str(row: Record<string, unknown>, i: number, column: string, nullable: boolean): string | null {
    const v = row[column];
    if (v === null && nullable) return null;
    if (typeof v !== 'string') fail(i, column, 'must be a string', v);
    return v;
  },
  bool(row: Record<string, unknown>, i: number, column: string, nullable: boolean): boolean | null {
    const v = row[column];
    if (v === null && nullable) return null;
    if (typeof v !== 'boolean') fail(i, column, 'must be a boolean', v);
    return v;
  },
  date(row: Record<string, unknown>, i: number, column: string): Date {
    const v = row[column];
    if (!(v instanceof Date) || Number.isNaN(v.getTime())) fail(i, column, 'must be a timestamp', v);
    return v;
  },
};

/**
 * A columnar file gives every row the same keys, so checking the first row tells whether a column
 * exists. An absent optional column reads as null in every row.
 */
export function requireColumns(
  rows: Record<string, unknown>[],
  required: readonly string[],
  artifact: string,
): void {
  if (rows.length === 0) return;
  const first = rows[0];
  const missing = required.filter((c) => !(c in first) || first[c] === undefined);
  if (missing.length > 0) {
    throw new ArtifactInvalidError(`${artifact}: missing required column(s) ${missing.join(', ')}`);
  }
}
