import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/**
 * Upcoming matches with current odds: each price is an `intermediate` observation at the fetch. A row whose
 * kick-off has passed says nothing new (its result comes from a results file) and is dropped.
 */
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
