// Intl formatters are expensive to create; one of each serves every card.
let dateTime: Intl.DateTimeFormat | null = null;
let kickoff: Intl.DateTimeFormat | null = null;

/** Kick-off in the user's local time zone, e.g. "Sat 12 Aug 2023, 14:00". */
export function formatKickoff(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown time';
  kickoff ??= new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return kickoff.format(ms);
}

/** A zone-less or UTC ISO timestamp (spec §2.7 `created_at` has no zone: it is UTC) shown locally. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '–';
  const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(iso) ? iso : `${iso}Z`;
  const ms = Date.parse(withZone);
  if (Number.isNaN(ms)) return iso;
  dateTime ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return dateTime.format(new Date(ms));
}

export function formatOdd(odd: number | null): string {
  return odd === null || !Number.isFinite(odd) ? '–' : odd.toFixed(2);
}

export function formatNumber(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Number.isInteger(n) ? String(n) : n.toFixed(digits);
}

export function shortRunId(runId: string | null | undefined): string {
  if (!runId) return '–';
  return runId.length > 12 ? runId.slice(0, 12) + '…' : runId;
}
