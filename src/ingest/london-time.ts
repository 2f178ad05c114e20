const london = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Offset of Europe/London from UTC at instant `t`, ms (0 in winter, 3,600,000 in summer). */
function londonOffsetMs(t: number): number {
  const p: Record<string, number> = {};
  for (const part of london.formatToParts(new Date(t))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - t;
}

/** UTC of a London wall-clock time (football-data.co.uk's kick-offs); a skipped spring hour moves on one. */
export function londonToUtc(y: number, month: number, d: number, h: number, mi: number): Date {
  const wall = Date.UTC(y, month - 1, d, h, mi);
  let t = wall - londonOffsetMs(wall);
  t = wall - londonOffsetMs(t);
  return new Date(t);
}
