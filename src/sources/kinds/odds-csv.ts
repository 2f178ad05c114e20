import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/** An odds-only CSV (`observed_at`, the match by id or natural key, price columns): it never creates matches. */
export const oddsCsv: SourceKind = {
  name: 'odds-csv',
  description: 'odds-only CSV (observed_at, match key, odd_home … odd_btts_no); never creates matches',
  body: 'csv',
  grows: false,
  parse: (text, ctx) => parseCsvAs(text, ctx, ['odds-only'], 'odds-only'),
};
