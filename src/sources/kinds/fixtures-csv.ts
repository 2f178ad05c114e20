import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/** Fixtures with current odds, observed at the fetch; a kick-off already passed says nothing new. */
export const fixturesCsv: SourceKind = {
  name: 'fixtures-csv',
  description: 'fixtures file with current odds (football-data.co.uk fixtures.csv), observed at each fetch',
  body: 'csv',
  grows: false,
  parse(text, ctx) {
    const parsed = parseCsvAs(text, ctx, ['football-data.co.uk', 'football-csv'], 'fixtures');
    const at = ctx.fetchedAt.getTime();
    parsed.matches = parsed.matches.filter((m) => m.match.startTimeUtc.getTime() > at);
    for (const m of parsed.matches)
      m.prices = m.prices.map((p) => ({ ...p, kind: 'intermediate' as const, observedAt: ctx.fetchedAt }));
    return parsed;
  },
};
