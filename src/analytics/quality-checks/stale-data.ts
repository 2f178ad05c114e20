import type { Match } from '../../domain/index.js';
import { type CheckResult, iso, listed, type QualityCheckDef, type QualityContext } from './types.js';

/** The results feed has stopped: the newest finished match before as-of is too old. */
export const staleDataCheck: QualityCheckDef = {
  id: 'stale_data',
  title: 'Stale data',
  run({ matches, asOf, limits: L }: QualityContext): CheckResult {
    let newest: Match | null = null;
    for (const m of matches) {
      if (
        m.status === 'finished' &&
        m.startTimeUtc < asOf &&
        (!newest || m.startTimeUtc > newest.startTimeUtc)
      ) {
        newest = m;
      }
    }
    const ageDays = newest ? (asOf.getTime() - newest.startTimeUtc.getTime()) / 86_400_000 : null;
    const stale = ageDays === null || ageDays > L.staleAfterDays;
    return listed(
      stale ? 1 : 0,
      1,
      newest
        ? `Newest finished match kicked off ${ageDays!.toFixed(1)} days before as-of (${iso(newest.startTimeUtc)}); more than ${L.staleAfterDays} days means the results feed has stopped (or the leagues are on a break).`
        : 'No finished match before as-of.',
      ['newest finished match', 'kick-off', 'age (days)'],
      newest
        ? [
            [
              `${newest.id} ${newest.homeTeamName} – ${newest.awayTeamName}`,
              iso(newest.startTimeUtc),
              ageDays!.toFixed(1),
            ],
          ]
        : [],
      L.maxExamples,
      'warn',
    );
  },
};
