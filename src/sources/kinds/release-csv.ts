import type { SourceKind } from '../types.js';
import { parseCsvAs } from './csv-checks.js';

/** Rows released as a clock passes them (the replay of `start --as-of`). */
export const releaseCsv: SourceKind = {
  name: 'release-csv',
  description: 'rows released by a clock (each body the rows that changed; shared football layout)',
  body: 'csv',
  grows: false,
  parse: (text, ctx) => parseCsvAs(text, ctx, ['football-csv'], 'release'),
};
