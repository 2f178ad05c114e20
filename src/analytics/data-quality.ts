import { QUALITY_CHECKS } from './quality-checks/index.js';
import {
  type CheckStatus,
  type DataQualityInput,
  type DataQualityReport,
  isNum,
  iso,
  type MissingColumn,
  type QualityCheck,
  type QualityCheckDef,
  type QualityLimits,
} from './quality-checks/types.js';

export type {
  DataQualityReport,
  QualityLimits,
} from './quality-checks/types.js';

const DEFAULT_QUALITY_LIMITS: QualityLimits = {
  minOdd: 1.01,
  overround: [0, 0.3],
  staleAfterDays: 21,
  maxMissingShare: 0.2,
  maxGoals: 20,
  maxExamples: 20,
};

/** Per-column missing-value shares: feature columns, odds columns and matches without an odds record. */
function missingColumns(input: DataQualityInput): MissingColumn[] {
  const missing: MissingColumn[] = [];
  for (const f of input.featureNames) {
    const n = input.featureRows.filter((r) => !isNum(r[f])).length;
    const total = input.featureRows.length;
    missing.push({ source: 'features', column: f, missing: n, total, share: total ? n / total : 0 });
  }
  for (const col of ['odd_home', 'odd_draw', 'odd_away', 'open_home', 'close_home'] as const) {
    const n = input.odds.filter((o) => !isNum(o[col])).length;
    const total = input.odds.length;
    missing.push({ source: 'odds', column: col, missing: n, total, share: total ? n / total : 0 });
  }
  const oddsIds = new Set(input.odds.map((o) => o.match_id));
  const noOdds = input.matches.filter((m) => !oddsIds.has(m.id));
  missing.push({
    source: 'matches',
    column: 'odds record',
    missing: noOdds.length,
    total: input.matches.length,
    share: input.matches.length ? noOdds.length / input.matches.length : 0,
  });
  return missing;
}

/** Runs every check of {@link QUALITY_CHECKS} (pure); the report's status is the worst check's. */
export function assessDataQuality(
  input: DataQualityInput,
  checkList: readonly QualityCheckDef[] = QUALITY_CHECKS,
): DataQualityReport {
  const limits = { ...DEFAULT_QUALITY_LIMITS, ...input.limits };
  const missing = missingColumns(input);
  const ctx = { ...input, limits, missing };
  const checks: QualityCheck[] = checkList.map((c) => ({ id: c.id, title: c.title, ...c.run(ctx) }));
  const status: CheckStatus = checks.some((c) => c.status === 'fail')
    ? 'fail'
    : checks.some((c) => c.status === 'warn')
      ? 'warn'
      : 'ok';
  return {
    generated_at: iso(input.now ?? new Date()),
    as_of: iso(input.asOf),
    status,
    checks,
    missing,
    limits,
  };
}
