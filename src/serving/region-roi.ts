import { parse } from 'csv-parse/sync';
import { type RegionRoi, ROI_BY_REGION_COLUMNS as ROI_COLUMNS } from '../schemas/index.js';
import { ArtifactInvalidError } from './validate.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** Spellings of "no value" that CSV writers (pandas, R, ours) use; anything else must parse. */
const NULLS = new Set(['', 'nan', 'NaN', 'NA', 'null', 'None']);

function float(v: string, line: number, column: string): number | null {
  const t = v.trim();
  if (NULLS.has(t)) return null;
  if (!NUMBER.test(t))
    throw new ArtifactInvalidError(`line ${line}: ${column} is not a number: ${JSON.stringify(v)}`);
  return Number(t);
}

function integer(v: string, line: number, column: string, nullable: boolean): number | null {
  const t = v.trim();
  if (nullable && NULLS.has(t)) return null;
  // pandas writes an integer column holding nulls as floats ("3.0"); accept only whole values.
  const n = NUMBER.test(t) ? Number(t) : Number.NaN;
  if (!Number.isSafeInteger(n)) {
    throw new ArtifactInvalidError(`line ${line}: ${column} is not an integer: ${JSON.stringify(v)}`);
  }
  return n;
}

/** `reports/roi_by_region.csv`, strictly: all five spec §2.6 columns (extras ignored), numbers that parse. */
export function parseRegionRoiCsv(body: Buffer | string): RegionRoi[] {
  let records: string[][];
  try {
    records = parse(body, { bom: true, skip_empty_lines: true, relax_column_count: false });
  } catch (err) {
    throw new ArtifactInvalidError(`roi_by_region.csv: ${(err as Error).message}`);
  }
  if (records.length === 0) throw new ArtifactInvalidError('roi_by_region.csv: no header line');
  const header = records[0].map((h) => h.trim());
  const missing = ROI_COLUMNS.find((c) => !header.includes(c));
  if (missing) throw new ArtifactInvalidError(`roi_by_region.csv: missing column ${missing}`);
  return records.slice(1).map((rec, k) => {
    const line = k + 2;
    const col = (c: (typeof ROI_COLUMNS)[number]) => rec[header.indexOf(c)];
    const nBets = integer(col('n_bets'), line, 'n_bets', false) as number;
    if (nBets < 0) throw new ArtifactInvalidError(`line ${line}: n_bets must be >= 0, got ${nBets}`);
    const hitRate = float(col('hit_rate'), line, 'hit_rate');
    return {
      region_name: col('region_name') || null,
      roi_pct: float(col('roi_pct'), line, 'roi_pct'),
      n_bets: nBets,
      hit_rate: hitRate,
      region_id: integer(col('region_id'), line, 'region_id', true),
    };
  });
}
