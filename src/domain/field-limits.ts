/**
 * Length limits of ingested text fields (characters, after trimming); a row over one is rejected alone.
 * PostgreSQL's b-tree index on the natural key refuses keys over ~2,700 bytes, which would abort the file.
 */
export const FIELD_LIMITS = {
  teamName: 80,
  regionName: 80,
  tournamentName: 80,
  source: 120,
  /** Any other single CSV field. */
  field: 200,
  /** A whole CSV line. */
  line: 10_000,
} as const;
