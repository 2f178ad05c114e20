import type { Match } from '../../domain/index.js';
import { type CheckResult, iso, listed, type QualityCheckDef, type QualityContext } from './types.js';

const HEADER = ['newest finished match', 'kick-off', 'age (days)'];

/** The results feed has stopped: the newest finished match before as-of is too old. */
export const staleDataCheck: QualityCheckDef = {
  id: 'stale_data',
  title: 'Stale data',
  run({ matches, asOf, limits: L }: QualityContext): CheckResult {
    const newest = matches
      .filter((m) => m.status === 'finished' && m.startTimeUtc < asOf)
      .reduce<Match | null>((a, m) => (!a || m.startTimeUtc > a.startTimeUtc ? m : a), null);
    if (!newest) return listed(1, 1, 'No finished match before as-of.', HEADER, [], 'warn');
    const age = (asOf.getTime() - newest.startTimeUtc.getTime()) / 86_400_000;
    const [ageDays, kickoff] = [age.toFixed(1), iso(newest.startTimeUtc)];
    return listed(
      age > L.staleAfterDays ? 1 : 0,
      1,
      `Newest finished match kicked off ${ageDays} days before as-of (${kickoff}); more than ${L.staleAfterDays} days means the results feed has stopped (or the leagues are on a break).`,
      HEADER,
      [[`${newest.id} ${newest.homeTeamName} – ${newest.awayTeamName}`, kickoff, ageDays]],
      'warn',
    );
  },
};
