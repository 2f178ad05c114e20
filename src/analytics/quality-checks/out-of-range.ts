import { type CheckResult, isNum, listed, type QualityCheckDef, type QualityContext } from './types.js';

/** Scores, probabilities and current-window feature values outside their plausible or reference range. */
export const outOfRangeCheck: QualityCheckDef = {
  id: 'out_of_range',
  title: 'Out-of-range values',
  run({
    matches,
    predictionRows,
    featureRows,
    featureNames,
    referenceRows,
    currentRows,
    limits: L,
  }: QualityContext): CheckResult {
    const rangeIssues: string[][] = [];
    // Every match and prediction row is examined; features count per non-missing current value.
    let rangeTotal = matches.length + (predictionRows?.length ?? 0);
    for (const m of matches) {
      for (const [k, v] of [
        ['home_score', m.homeScore],
        ['away_score', m.awayScore],
      ] as const) {
        if (v !== null && (!Number.isInteger(v) || v < 0 || v > L.maxGoals)) {
          rangeIssues.push(['matches', String(m.id), k, String(v), `0 … ${L.maxGoals}`]);
        }
      }
    }
    for (const r of predictionRows ?? []) {
      const ps = [r.proba_home, r.proba_draw, r.proba_away];
      const bad = ps.some((p) => !isNum(p) || p < 0 || p > 1);
      const sum = ps.reduce<number>((s, p) => s + (isNum(p) ? p : 0), 0);
      if (bad || Math.abs(sum - 1) > 1e-6) {
        rangeIssues.push([
          'predictions',
          String(r.match_id),
          'proba_*',
          ps.map(String).join(' / '),
          '[0, 1], sum 1',
        ]);
      }
    }
    for (const f of featureNames) {
      const ref = (referenceRows ?? featureRows).map((r) => r[f]).filter(isNum);
      const lo = ref.reduce((a, v) => Math.min(a, v), Number.POSITIVE_INFINITY);
      const hi = ref.reduce((a, v) => Math.max(a, v), Number.NEGATIVE_INFINITY);
      for (const r of currentRows ?? featureRows) {
        const v = r[f];
        if (v === null || v === undefined) continue;
        rangeTotal++;
        if (!isNum(v)) rangeIssues.push(['features', String(r.match_id), f, String(v), 'finite']);
        else if (lo <= hi && (v < lo || v > hi)) {
          rangeIssues.push([
            'features',
            String(r.match_id),
            f,
            String(Number(v.toFixed(4))),
            `[${lo.toFixed(3)}, ${hi.toFixed(3)}] (reference)`,
          ]);
        }
      }
    }
    return listed(
      rangeIssues.length,
      rangeTotal,
      'Scores outside a plausible range, probabilities outside [0, 1] or not summing to 1, non-finite features, and current-window feature values outside the range seen in the reference data.',
      ['source', 'match_id', 'column', 'value', 'expected'],
      rangeIssues,
      rangeIssues.some((r) => r[0] !== 'features') ? 'fail' : 'warn',
    );
  },
};
