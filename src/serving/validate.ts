/** Thrown when an artifact fails validation; the caller keeps serving the previous copy. */
export class ArtifactInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactInvalidError';
  }
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function fail(row: number, column: string, what: string, value: unknown): never {
  const shown = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  throw new ArtifactInvalidError(`row ${row}: column ${column} ${what}, got ${shown?.slice(0, 80)}`);
}

/** A reader of one cell of type T: `ok` checks the value (after `read`), else row and column are named. */
function reader<T>(what: string, ok: (v: unknown) => boolean, read = (v: unknown) => v) {
  return (row: Record<string, unknown>, i: number, column: string, nullable: boolean): T | null => {
    const v = read(row[column]);
    if (v === null && nullable) return null;
    if (!ok(v)) fail(i, column, what, v);
    return v as T;
  };
}

const SAFE = { min: BigInt(Number.MIN_SAFE_INTEGER), max: BigInt(Number.MAX_SAFE_INTEGER) };

/** Column readers: each checks the type of one cell and names row and column when it is wrong. */
export const cell = {
  int: reader<number>(
    'must be an integer',
    (v) => Number.isSafeInteger(v),
    (v) => (typeof v === 'bigint' && v >= SAFE.min && v <= SAFE.max ? Number(v) : v),
  ),
  num: reader<number>('must be a finite number', (v) => Number.isFinite(v)),
  str: reader<string>('must be a string', (v) => typeof v === 'string'),
  bool: reader<boolean>('must be a boolean', (v) => typeof v === 'boolean'),
  date(row: Record<string, unknown>, i: number, column: string): Date {
    const v = row[column];
    if (!(v instanceof Date) || Number.isNaN(v.getTime())) fail(i, column, 'must be a timestamp', v);
    return v;
  },
};

/** A columnar file gives every row the same keys, so the first row tells which columns exist. */
export function requireColumns(
  rows: Record<string, unknown>[],
  required: readonly string[],
  artifact: string,
): void {
  if (rows.length === 0) return;
  const first = rows[0];
  const missing = required.filter((c) => !(c in first) || first[c] === undefined);
  if (missing.length > 0)
    throw new ArtifactInvalidError(`${artifact}: missing required column(s) ${missing.join(', ')}`);
}
