import { type CheckResult, listed, type QualityCheckDef, type QualityContext } from './types.js';

/** Columns with too many missing values, and finished matches without a score. */
export const missingValuesCheck: QualityCheckDef = {
  id: 'missing_values',
  title: 'Missing values',
  run({ missing, matches, asOf, limits: L }: QualityContext): CheckResult {
    const finishedNoScore = matches.filter(
      (m) =>
        m.status === 'finished' && m.startTimeUtc < asOf && (m.homeScore === null || m.awayScore === null),
    );
    // Opening/closing columns are listed for information only: many sources record just one of them.
    const heavy = missing.filter(
      (m) => m.share > L.maxMissingShare && !(m.source === 'odds' && /^(open|close)_/.test(m.column)),
    );
    return listed(
      heavy.length + finishedNoScore.length,
      missing.length,
      `Columns with more than ${(L.maxMissingShare * 100).toFixed(0)} % missing values, and finished matches without a score. Per-column shares are in the table below.`,
      ['source', 'column / match', 'missing'],
      [
        ...heavy.map((m) => [m.source, m.column, `${(m.share * 100).toFixed(1)} % of ${m.total}`]),
        ...finishedNoScore.map((m) => ['matches', `${m.id} ${m.homeTeamName} – ${m.awayTeamName}`, 'score']),
      ],
      'warn',
    );
  },
};
