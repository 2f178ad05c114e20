import { type CheckResult, listed, type QualityCheckDef, type QualityContext } from './types.js';

/** The same match twice: natural key, a team twice on one day, or a match_id twice in an artifact. */
export const duplicatesCheck: QualityCheckDef = {
  id: 'duplicates',
  title: 'Duplicate matches',
  run({ matches, odds, featureRows, predictionRows }: QualityContext): CheckResult {
    const dupes: string[][] = [];
    const seenKey = new Map<string, number>();
    const seenTeamDay = new Map<string, number>();
    for (const m of matches) {
      const day = m.startTimeUtc.toISOString().slice(0, 10);
      const key = `${m.regionName}|${m.tournamentName}|${m.startTimeUtc.toISOString()}|${m.homeTeamName}|${m.awayTeamName}`;
      const prev = seenKey.get(key);
      if (prev !== undefined)
        dupes.push(['matches (natural key)', `${prev}, ${m.id}`, `${m.homeTeamName} – ${m.awayTeamName}`]);
      else seenKey.set(key, m.id);
      for (const team of [m.homeTeamName, m.awayTeamName]) {
        const tk = `${m.regionName}|${team}|${day}`;
        const p = seenTeamDay.get(tk);
        if (p !== undefined && p !== m.id && prev === undefined) {
          dupes.push(['matches (team twice in a day)', `${p}, ${m.id}`, `${team} on ${day}`]);
        } else seenTeamDay.set(tk, m.id);
      }
    }
    for (const [source, ids] of [
      ['odds.parquet', odds.map((o) => o.match_id)],
      ['match_features.parquet', featureRows.map((r) => r.match_id)],
      ['predictions.parquet', (predictionRows ?? []).map((r) => r.match_id)],
    ] as const) {
      const seen = new Set<unknown>();
      for (const id of ids) {
        if (seen.has(id)) dupes.push([source, String(id), 'match_id twice']);
        seen.add(id);
      }
    }
    return listed(
      dupes.length,
      matches.length,
      'The same natural key (region, tournament, kick-off, home, away) twice, a team with two matches on one day, or a match_id twice in an artifact.',
      ['where', 'match ids', 'what'],
      dupes,
    );
  },
};
