import { QUALITY_CHECKS } from './quality-checks/index.js';
import {
  type CheckStatus,
  type DataQualityInput,
  DEFAULT_QUALITY_LIMITS,
  isNum,
  iso,
  type MissingColumn,
} from './quality-checks/types.js';

/** Per-column missing-value shares: feature columns, odds columns and matches without an odds record. */
function missingColumns({ featureNames, featureRows, odds, matches }: DataQualityInput): MissingColumn[] {
  const entry = (source: string, column: string, missing: number, total: number): MissingColumn => ({
    source,
    column,
    missing,
    total,
    share: total ? missing / total : 0,
  });
  const oddsIds = new Set(odds.map((o) => o.match_id));
  return [
    ...featureNames.map((f) =>
      entry('features', f, featureRows.filter((r) => !isNum(r[f])).length, featureRows.length),
    ),
    ...(['odd_home', 'odd_draw', 'odd_away', 'open_home', 'close_home'] as const).map((col) =>
      entry('odds', col, odds.filter((o) => !isNum(o[col])).length, odds.length),
    ),
    entry('matches', 'odds record', matches.filter((m) => !oddsIds.has(m.id)).length, matches.length),
  ];
}

/** Runs every check of {@link QUALITY_CHECKS} (pure); the report's status is the worst check's. */
export function assessDataQuality(input: DataQualityInput) {
  const limits = DEFAULT_QUALITY_LIMITS;
  const missing = missingColumns(input);
  const ctx = { ...input, limits, missing };
  const checks = QUALITY_CHECKS.map((c) => ({ id: c.id, title: c.title, ...c.run(ctx) }));
  return {
    generated_at: iso(input.now ?? new Date()),
    as_of: iso(input.asOf),
    status:
      (['fail', 'warn'] as const).find((s) => checks.some((c) => c.status === s)) ?? ('ok' as CheckStatus),
    checks,
    missing,
    limits,
  };
}

export type DataQualityReport = ReturnType<typeof assessDataQuality>;
