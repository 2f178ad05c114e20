import { MATRIX_SIZE } from '../../features/index.js';
import type { MatchMarkets } from '../../schemas/index.js';

/** Over/under total-goals lines every market view carries. */
export const TOTAL_LINES = [0.5, 1.5, 2.5, 3.5, 4.5] as const;
/** Asian handicap lines (home side's handicap); quarter lines split the stake over the two neighbours. */
const ASIAN_LINES = [-2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5] as const;

/** Every market of one match, all from the same score matrix. */
type GoalsMarkets = Pick<
  MatchMarkets,
  | 'proba_home'
  | 'proba_draw'
  | 'proba_away'
  | 'over'
  | 'btts_yes'
  | 'dnb_home'
  | 'dnb_away'
  | 'asian'
  | 'top_scores'
>;

/** Row = home goals, column = away goals. */
export function marketsFromMatrix(m: Float64Array, topN = 5): GoalsMarkets {
  let home = 0;
  let draw = 0;
  let away = 0;
  let btts = 0;
  const totals = new Float64Array(2 * MATRIX_SIZE);
  // diff[d + MAX] = P(home − away = d)
  const diff = new Float64Array(2 * MATRIX_SIZE - 1);
  for (let h = 0; h < MATRIX_SIZE; h++) {
    for (let a = 0; a < MATRIX_SIZE; a++) {
      const p = m[h * MATRIX_SIZE + a];
      if (h > a) home += p;
      else if (h === a) draw += p;
      else away += p;
      if (h > 0 && a > 0) btts += p;
      totals[h + a] += p;
      diff[h - a + MATRIX_SIZE - 1] += p;
    }
  }
  const over: Record<string, number> = {};
  for (const line of TOTAL_LINES) {
    let under = 0;
    for (let t = 0; t < line; t++) under += totals[t];
    over[line.toFixed(1)] = 1 - under;
  }
  const asian = ASIAN_LINES.map((line) => asianLine(diff, line));
  // Top-n by insertion into a short sorted list (ties: fewer home goals, then fewer away goals first).
  const top: { home: number; away: number; proba: number }[] = [];
  for (let i = 0; i < m.length; i++) {
    if (top.length === topN && m[i] <= top[topN - 1].proba) continue;
    const cell = { home: Math.floor(i / MATRIX_SIZE), away: i % MATRIX_SIZE, proba: m[i] };
    let k = top.length;
    while (k > 0 && top[k - 1].proba < cell.proba) k--;
    top.splice(k, 0, cell);
    if (top.length > topN) top.pop();
  }
  const decisive = home + away;
  return {
    proba_home: home,
    proba_draw: draw,
    proba_away: away,
    over,
    btts_yes: btts,
    dnb_home: decisive > 0 ? home / decisive : 0.5,
    dnb_away: decisive > 0 ? away / decisive : 0.5,
    asian,
    top_scores: top,
  };
}

/** Home side with handicap `line`: wins when (home − away) + line > 0, push when it is 0. */
function asianLine(diff: Float64Array, line: number): MatchMarkets['asian'][number] {
  let win = 0;
  let push = 0;
  let lose = 0;
  for (let i = 0; i < diff.length; i++) {
    const d = i - (MATRIX_SIZE - 1) + line;
    if (d > 1e-9) win += diff[i];
    else if (d < -1e-9) lose += diff[i];
    else push += diff[i];
  }
  return {
    line,
    home_win: win,
    push,
    home_lose: lose,
    home_fair_odds: win > 0 ? (win + lose) / win : null,
  };
}
