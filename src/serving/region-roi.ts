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

/**
 * Parses `reports/roi_by_region.csv` strictly: a header holding all five spec §2.6 columns (extra
 * columns are ignored), the same field count on every line, numbers that parse completely.
 */
export function parseRegionRoiCsv(body: Buffer | string): RegionRoi[] {
  let records: string[][];
  try {
    records = parse(body, { bom: true, skip_empty_lines: true, relax_column_count: false });
  } catch (err) {
    throw new ArtifactInvalidError(`roi_by_region.csv: ${(err as Error).message}`);
  }
  if (records.length === 0) throw new ArtifactInvalidError('roi_by_region.csv: no header line');
  const header = records[0].map((h) => h.trim());
  const index = new Map<string, number>();
  for (const c of ROI_COLUMNS) {
    const at = header.indexOf(c);
    if (at < 0) throw new ArtifactInvalidError(`roi_by_region.csv: missing column ${c}`);
    index.set(c, at);
  }
  const col = (rec: string[], c: (typeof ROI_COLUMNS)[number]) => rec[index.get(c) as number];
  const rows: RegionRoi[] = [];
  for (let i = 1; i < records.length; i++) {
    const rec = records[i];
    const line = i + 1;
    const name = col(rec, 'region_name');
    const nBets = integer(col(rec, 'n_bets'), line, 'n_bets', false) as number;
    if (nBets < 0) throw new ArtifactInvalidError(`line ${line}: n_bets must be >= 0, got ${nBets}`);
    const hitRate = float(col(rec, 'hit_rate'), line, 'hit_rate');
    rows.push({
      region_name: name === '' ? null : name,
      roi_pct: float(col(rec, 'roi_pct'), line, 'roi_pct'),
      n_bets: nBets,
      hit_rate: hitRate,
      region_id: integer(col(rec, 'region_id'), line, 'region_id', true),
    });
  }
  return rows;
}
