// Strict dates: `Date` rolls a bad part over (`2022-02-30` is 2 March); here that makes the value invalid.

/** Years an instant from outside may fall in (the data starts in the 1990s; nothing is dated 2101). */
const INSTANT_YEARS = { min: 1900, max: 2100 } as const;

export const INSTANT_FORMAT = `YYYY-MM-DD[ HH:MM[:SS[.fff]][Z|±HH:MM]], year ${INSTANT_YEARS.min}–${INSTANT_YEARS.max}`;

/** The UTC instant of calendar parts, or null when any part is out of its range. */
export function utcInstant(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  const parts = [y, mo, d, h, mi, s, ms];
  if (!parts.every(Number.isInteger)) return null;
  if (y < INSTANT_YEARS.min || y > INSTANT_YEARS.max || mo < 1 || mo > 12 || d < 1) return null;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || ms < 0 || ms > 999) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  // Day 30 of February comes back as 2 March: the month changed, so the day was not in it.
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date : null;
}

// A zone only after a time: `2021-08-14-14:00` is a typo, not midnight at UTC−14.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?)?$/i;

/** An instant in {@link INSTANT_FORMAT}, UTC without a zone; null when not of that form or not real. */
export function parseInstant(raw: string): Date | null {
  const m = INSTANT.exec(raw.trim());
  if (!m) return null;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const wall = utcInstant(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), ms);
  if (!wall) return null;
  if (m[9] === undefined) return wall;
  const oh = Number(m[10]);
  const om = Number(m[11]);
  if (oh > 23 || om > 59) return null;
  const offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  const t = new Date(wall.getTime() - offset);
  // An offset may carry a date just past the range into UTC (2100-12-31T23:00-05:00): refused too.
  const year = t.getUTCFullYear();
  return year < INSTANT_YEARS.min || year > INSTANT_YEARS.max ? null : t;
}

export const DAY_MS = 86_400_000;
