import type { Match, OddsRecord } from '../domain/index.js';
import type { ValueRow } from './drift.js';

/** Limits of the data-quality checks; see docs/analytics.md. */
export interface QualityLimits {
  /** A decimal odd below this is impossible (a bet returning less than 1 % profit at best). Default `1.01`. */
  minOdd: number;
  /** Plausible range of the 1X2 overround `Σ 1/odd − 1`. Default `[0, 0.3]`. */
  overround: readonly [number, number];
  /** Newest finished match older than this many days before as-of = stale data. Default `21`. */
  staleAfterDays: number;
  /** A share of missing values above this in a column is a warning. Default `0.2`. */
  maxMissingShare: number;
  /** Goals outside 0 … this are out of range. Default `20`. */
  maxGoals: number;
  /** Examples listed per check. Default `20`. */
  maxExamples: number;
}

export const DEFAULT_QUALITY_LIMITS: QualityLimits = {
  minOdd: 1.01,
  overround: [0, 0.3],
  staleAfterDays: 21,
  maxMissingShare: 0.2,
  maxGoals: 20,
  maxExamples: 20,
};

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface QualityCheck {
  id: string;
  title: string;
  status: CheckStatus;
  /** Offending items. */
  count: number;
  /** Items examined. */
  total: number;
  detail: string;
  example_header: string[];
  examples: string[][];
  /** Example rows left out of `examples` (at most `maxExamples` are kept). */
  omitted: number;
}

export interface MissingColumn {
  source: string;
  column: string;
  missing: number;
  total: number;
  share: number;
}

export interface DataQualityReport {
  generated_at: string;
  as_of: string;
  status: CheckStatus;
  checks: QualityCheck[];
  missing: MissingColumn[];
  limits: QualityLimits;
}

export interface DataQualityInput {
  asOf: Date;
  matches: readonly Match[];
  odds: readonly OddsRecord[];
  /** Rows of the features parquet (match_id, start_time_utc, feature columns). */
  featureRows: readonly ValueRow[];
  featureNames: readonly string[];
  /** Reference rows whose per-feature [min, max] define the in-range interval; default featureRows. */
  referenceRows?: readonly ValueRow[];
  /** Current-window rows checked against that interval; default featureRows. */
  currentRows?: readonly ValueRow[];
  /**
   * Start of the current window: impossible odds of matches from here on fail the check, older ones
   * (history that has already been trained on) only warn. Default: every match counts as current.
   */
  windowStart?: Date;
  /** Rows of predictions.parquet, when present. */
  predictionRows?: readonly ValueRow[];
  limits?: Partial<QualityLimits>;
  now?: Date;
}

function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function iso(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

function check(
  id: string,
  title: string,
  count: number,
  total: number,
  detail: string,
  header: string[],
  examples: string[][],
  max: number,
  failStatus: CheckStatus = 'fail',
): QualityCheck {
  return {
    id,
    title,
    status: count > 0 ? failStatus : 'ok',
    count,
    total,
    detail,
    example_header: header,
    examples: examples.slice(0, max),
    omitted: Math.max(0, examples.length - max),
  };
}

/** Runs every data-quality check (pure). */
export function assessDataQuality(input: DataQualityInput): DataQualityReport {
  const L = { ...DEFAULT_QUALITY_LIMITS, ...input.limits };
  const max = L.maxExamples;
  const checks: QualityCheck[] = [];
  const missing: MissingColumn[] = [];

  // Missing values: feature columns and odds columns.
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
  const finishedNoScore = input.matches.filter(
    (m) =>
      m.status === 'finished' &&
      m.startTimeUtc < input.asOf &&
      (m.homeScore === null || m.awayScore === null),
  );
  // Opening/closing columns are listed for information only: many sources record just one of them.
  const heavy = missing.filter(
    (m) => m.share > L.maxMissingShare && !(m.source === 'odds' && /^(open|close)_/.test(m.column)),
  );
  checks.push(
    check(
      'missing_values',
      'Missing values',
      heavy.length + finishedNoScore.length,
      missing.length,
      `Columns with more than ${(L.maxMissingShare * 100).toFixed(0)} % missing values, and finished matches without a score. Per-column shares are in the table below.`,
      ['source', 'column / match', 'missing'],
      [
        ...heavy.map((m) => [m.source, m.column, `${(m.share * 100).toFixed(1)} % of ${m.total}`]),
        ...finishedNoScore.map((m) => ['matches', `${m.id} ${m.homeTeamName} – ${m.awayTeamName}`, 'score']),
      ],
      max,
      'warn',
    ),
  );

  // Out-of-range values.
  const rangeIssues: string[][] = [];
  let rangeTotal = 0;
  for (const m of input.matches) {
    rangeTotal++;
    for (const [k, v] of [
      ['home_score', m.homeScore],
      ['away_score', m.awayScore],
    ] as const) {
      if (v !== null && (!Number.isInteger(v) || v < 0 || v > L.maxGoals)) {
        rangeIssues.push(['matches', String(m.id), k, String(v), `0 … ${L.maxGoals}`]);
      }
    }
  }
  for (const r of input.predictionRows ?? []) {
    rangeTotal++;
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
  const refRows = input.referenceRows ?? input.featureRows;
  const curRows = input.currentRows ?? input.featureRows;
  for (const f of input.featureNames) {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const r of refRows) {
      const v = r[f];
      if (isNum(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    for (const r of curRows) {
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
  checks.push(
    check(
      'out_of_range',
      'Out-of-range values',
      rangeIssues.length,
      rangeTotal,
      'Scores outside a plausible range, probabilities outside [0, 1] or not summing to 1, non-finite features, and current-window feature values outside the range seen in the reference data.',
      ['source', 'match_id', 'column', 'value', 'expected'],
      rangeIssues,
      max,
      rangeIssues.some((r) => r[0] !== 'features') ? 'fail' : 'warn',
    ),
  );

  // Duplicate matches: the natural key twice, a team playing twice on one day, an id twice in a file.
  const dupes: string[][] = [];
  const seenKey = new Map<string, number>();
  const seenTeamDay = new Map<string, number>();
  for (const m of input.matches) {
    const key = [
      m.regionName,
      m.tournamentName,
      m.startTimeUtc.toISOString(),
      m.homeTeamName,
      m.awayTeamName,
    ].join('|');
    const prev = seenKey.get(key);
    if (prev !== undefined)
      dupes.push(['matches (natural key)', `${prev}, ${m.id}`, `${m.homeTeamName} – ${m.awayTeamName}`]);
    else seenKey.set(key, m.id);
    const day = m.startTimeUtc.toISOString().slice(0, 10);
    for (const team of [m.homeTeamName, m.awayTeamName]) {
      const tk = `${m.regionName}|${team}|${day}`;
      const p = seenTeamDay.get(tk);
      if (p !== undefined && p !== m.id && prev === undefined) {
        dupes.push(['matches (team twice in a day)', `${p}, ${m.id}`, `${team} on ${day}`]);
      } else seenTeamDay.set(tk, m.id);
    }
  }
  for (const [source, ids] of [
    ['odds.parquet', input.odds.map((o) => o.match_id)],
    ['match_features.parquet', input.featureRows.map((r) => r.match_id)],
    ['predictions.parquet', (input.predictionRows ?? []).map((r) => r.match_id)],
  ] as const) {
    const seen = new Set<unknown>();
    for (const id of ids) {
      if (seen.has(id)) dupes.push([source, String(id), 'match_id twice']);
      seen.add(id);
    }
  }
  checks.push(
    check(
      'duplicates',
      'Duplicate matches',
      dupes.length,
      input.matches.length,
      'The same natural key (region, tournament, kick-off, home, away) twice, a team with two matches on one day, or a match_id twice in an artifact.',
      ['where', 'match ids', 'what'],
      dupes,
      max,
    ),
  );

  // Impossible odds.
  const oddIssues: string[][] = [];
  const badOddsMatches = new Set<number>();
  let badInWindow = false;
  const startById = new Map(input.matches.map((m) => [m.id, m.startTimeUtc]));
  for (const o of input.odds) {
    const before = oddIssues.length;
    for (const [label, triple] of [
      ['pre-match', [o.odd_home, o.odd_draw, o.odd_away]],
      ['opening', [o.open_home, o.open_draw, o.open_away]],
      ['closing', [o.close_home, o.close_draw, o.close_away]],
    ] as const) {
      const present = triple.filter((x): x is number => x !== null);
      const low = present.filter((x) => !Number.isFinite(x) || x < L.minOdd);
      if (low.length) {
        oddIssues.push([String(o.match_id), label, triple.map(String).join(' / '), `odd below ${L.minOdd}`]);
        continue;
      }
      if (present.length === 3) {
        const over = present.reduce((s, x) => s + 1 / x, 0) - 1;
        if (over < L.overround[0] || over > L.overround[1]) {
          oddIssues.push([
            String(o.match_id),
            label,
            triple.map(String).join(' / '),
            `overround ${(over * 100).toFixed(1)} % outside [${L.overround[0] * 100}, ${L.overround[1] * 100}] %`,
          ]);
        }
      }
    }
    if (oddIssues.length > before) {
      badOddsMatches.add(o.match_id);
      const start = startById.get(o.match_id);
      if (!input.windowStart || !start || start >= input.windowStart) badInWindow = true;
    }
  }
  checks.push(
    check(
      'impossible_odds',
      'Impossible odds',
      badOddsMatches.size,
      input.odds.length,
      `Decimal odds below ${L.minOdd}, or a full 1X2 set whose overround Σ 1/odd − 1 is outside [${L.overround[0] * 100}, ${L.overround[1] * 100}] % (negative = a sure profit; large = not a real market). Counted per match; a match in the current window fails the check, older ones warn.`,
      ['match_id', 'odds', 'home / draw / away', 'problem'],
      oddIssues,
      max,
      badInWindow ? 'fail' : 'warn',
    ),
  );

  // Stale data: the newest finished match before as-of.
  let newest: Match | null = null;
  for (const m of input.matches) {
    if (
      m.status === 'finished' &&
      m.startTimeUtc < input.asOf &&
      (!newest || m.startTimeUtc > newest.startTimeUtc)
    ) {
      newest = m;
    }
  }
  const ageDays = newest ? (input.asOf.getTime() - newest.startTimeUtc.getTime()) / 86_400_000 : null;
  const stale = ageDays === null || ageDays > L.staleAfterDays;
  checks.push({
    id: 'stale_data',
    title: 'Stale data',
    status: stale ? 'warn' : 'ok',
    count: stale ? 1 : 0,
    total: 1,
    detail: newest
      ? `Newest finished match kicked off ${ageDays!.toFixed(1)} days before as-of (${iso(newest.startTimeUtc)}); more than ${L.staleAfterDays} days means the results feed has stopped (or the leagues are on a break).`
      : 'No finished match before as-of.',
    omitted: 0,
    example_header: ['newest finished match', 'kick-off', 'age (days)'],
    examples: newest
      ? [
          [
            `${newest.id} ${newest.homeTeamName} – ${newest.awayTeamName}`,
            iso(newest.startTimeUtc),
            ageDays!.toFixed(1),
          ],
        ]
      : [],
  });

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
    limits: L,
  };
}
