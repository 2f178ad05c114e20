/** Ingested text lengths: PostgreSQL's natural-key index refuses keys over ~2,700 bytes (aborts the file). */
export const FIELD_LIMITS = {
  teamName: 80,
  regionName: 80,
  tournamentName: 80,
  source: 120,
  field: 200,
  line: 10_000,
} as const;
