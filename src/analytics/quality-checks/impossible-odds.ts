import { type CheckResult, listed, type QualityCheckDef, type QualityContext } from './types.js';

/** Odds below the minimum or a 1X2 book with an implausible overround; fails only for matches in the current window. */
export const impossibleOddsCheck: QualityCheckDef = {
  id: 'impossible_odds',
  title: 'Impossible odds',
  run({ matches, odds, windowStart, limits: L }: QualityContext): CheckResult {
    const oddIssues: string[][] = [];
    const badOddsMatches = new Set<number>();
    let badInWindow = false;
    const [lo, hi] = L.overround;
    const startById = new Map(matches.map((m) => [m.id, m.startTimeUtc]));
    for (const o of odds) {
      const before = oddIssues.length;
      for (const [label, triple] of [
        ['pre-match', [o.odd_home, o.odd_draw, o.odd_away]],
        ['opening', [o.open_home, o.open_draw, o.open_away]],
        ['closing', [o.close_home, o.close_draw, o.close_away]],
      ] as const) {
        const present = triple.filter((x): x is number => x !== null);
        const over = present.reduce((s, x) => s + 1 / x, 0) - 1;
        const problem = present.some((x) => !Number.isFinite(x) || x < L.minOdd)
          ? `odd below ${L.minOdd}`
          : present.length === 3 && (over < lo || over > hi)
            ? `overround ${(over * 100).toFixed(1)} % outside [${lo * 100}, ${hi * 100}] %`
            : null;
        if (problem) oddIssues.push([String(o.match_id), label, triple.map(String).join(' / '), problem]);
      }
      if (oddIssues.length > before) {
        badOddsMatches.add(o.match_id);
        const start = startById.get(o.match_id);
        if (!windowStart || !start || start >= windowStart) badInWindow = true;
      }
    }
    return listed(
      badOddsMatches.size,
      odds.length,
      `Decimal odds below ${L.minOdd}, or a full 1X2 set whose overround Σ 1/odd − 1 is outside [${lo * 100}, ${hi * 100}] % (negative = a sure profit; large = not a real market). Counted per match; a match in the current window fails the check, older ones warn.`,
      ['match_id', 'odds', 'home / draw / away', 'problem'],
      oddIssues,
      badInWindow ? 'fail' : 'warn',
    );
  },
};
