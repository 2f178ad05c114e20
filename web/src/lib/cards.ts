import type { Card, Outcome } from './types.js';

/** Edge threshold used when the server does not say (the simulation's default, `EDGE_THRESHOLD`). */
export const DEFAULT_EDGE_THRESHOLD = 0.05;

export const OUTCOME_NAMES: Record<Outcome, string> = { 0: 'Home win', 1: 'Draw', 2: 'Away win' };

/** A card with the values filtering and sorting need, computed once when the list arrives. */
export interface IndexedCard {
  card: Card;
  /** Kick-off as epoch ms (NaN-safe: unparsable dates sort last as +Infinity). */
  t: number;
  /** Lower-cased "home away" for team search. */
  teams: string;
  upcoming: boolean;
}

export type View = 'upcoming' | 'recent' | 'all';

export interface CardFilter {
  view: View;
  /** Region id as a string, or '' for every region. */
  region: string;
  /** `YYYY-MM-DD` in the user's local time, inclusive; '' = open. */
  from: string;
  to: string;
  team: string;
}

export const EMPTY_FILTER: CardFilter = { view: 'all', region: '', from: '', to: '', team: '' };

/** The model's edge on a bet: p × odd − 1; null when the odd is unknown. */
export function edge(probability: number, odd: number | null): number | null {
  if (odd === null || !Number.isFinite(odd) || odd <= 1) return null;
  return probability * odd - 1;
}

function isUpcoming(card: Card): boolean {
  if (card.status === 'finished') return false;
  return card.is_future !== false;
}

export function indexCards(cards: Card[]): IndexedCard[] {
  const out: IndexedCard[] = new Array(cards.length);
  for (let i = 0; i < cards.length; i++) {
    const card = cards[i];
    const t = Date.parse(card.start_time_utc);
    out[i] = {
      card,
      t: Number.isNaN(t) ? Number.POSITIVE_INFINITY : t,
      teams: `${card.home_team_name ?? ''} ${card.away_team_name ?? ''}`.toLowerCase(),
      upcoming: isUpcoming(card),
    };
  }
  return out;
}

/** Local midnight of a `YYYY-MM-DD` date as epoch ms, or null when empty or invalid. */
export function localDayStart(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
}

/**
 * Filters and sorts by kick-off: upcoming matches soonest first, recent (finished) matches latest
 * first, and "all" in plain chronological order.
 */
export function filterCards(cards: IndexedCard[], f: CardFilter): IndexedCard[] {
  const from = localDayStart(f.from);
  const toStart = localDayStart(f.to);
  const to = toStart === null ? null : toStart + 86_400_000;
  const team = f.team.trim().toLowerCase();
  const out: IndexedCard[] = [];
  for (const c of cards) {
    if (f.view === 'upcoming' && !c.upcoming) continue;
    if (f.view === 'recent' && c.upcoming) continue;
    if (f.region !== '' && String(c.card.region_id) !== f.region) continue;
    if (from !== null && c.t < from) continue;
    if (to !== null && c.t >= to) continue;
    if (team !== '' && !c.teams.includes(team)) continue;
    out.push(c);
  }
  if (f.view === 'recent') out.sort((a, b) => b.t - a.t || a.card.match_id - b.card.match_id);
  else out.sort((a, b) => a.t - b.t || a.card.match_id - b.card.match_id);
  return out;
}

export interface RegionOption {
  id: string;
  name: string;
  count: number;
}

export function regionOptions(cards: IndexedCard[]): RegionOption[] {
  const map = new Map<string, RegionOption>();
  for (const { card } of cards) {
    const id = String(card.region_id);
    const entry = map.get(id);
    if (entry) entry.count++;
    else map.set(id, { id, name: card.region_name ?? `Region ${id}`, count: 1 });
  }
  return [...map.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function teamNames(cards: IndexedCard[]): string[] {
  const set = new Set<string>();
  for (const { card } of cards) {
    if (card.home_team_name) set.add(card.home_team_name);
    if (card.away_team_name) set.add(card.away_team_name);
  }
  return [...set].sort((a, b) => a.localeCompare(b));
}

/** The view to open with: upcoming matches when there are any, else the latest results. */
export function defaultView(cards: IndexedCard[]): View {
  return cards.some((c) => c.upcoming) ? 'upcoming' : 'recent';
}

export function pct(p: number | null | undefined, digits = 0): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  return `${(p * 100).toFixed(digits)}%`;
}

export function signedPct(p: number | null, digits = 1): string {
  if (p === null || !Number.isFinite(p)) return '–';
  const s = (p * 100).toFixed(digits);
  return p > 0 ? `+${s}%` : `${s}%`;
}
