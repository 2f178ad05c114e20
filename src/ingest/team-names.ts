import type { Queryable } from '../db/index.js';
import { getOrSet } from '../domain/index.js';
import type { NearDuplicateTeams } from './types.js';

/** Case- and spacing-insensitive key of a team name: `Manchester  CITY` and `manchester city` are one team. */
export function foldName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** Every region's stored team names, smallest first: a deterministic choice when the DB holds two spellings. */
async function storedTeamNames(db: Queryable): Promise<{ region_name: string; name: string }[]> {
  const rows = await db.query<{ region_name: string; name: string }>(
    `SELECT DISTINCT region_name, home_team_name AS name FROM matches
     UNION SELECT DISTINCT region_name, away_team_name FROM matches`,
  );
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Letters, digits and spaces only, no accents (`St. Étienne` → `st etienne`): for reports and hints. */
export function looseName(name: string): string {
  return foldName(name)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N} ]/gu, '');
}

function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** Each team's first spelling per region; near names are reported, never merged (`Sporting` ≠ `Sporting CP`). */
export class TeamNames {
  /** region → fold key → display name. */
  private readonly byRegion = new Map<string, Map<string, string>>();
  /** Names first seen in this ingest, per region. */
  private readonly added = new Map<string, Set<string>>();

  static async load(db: Queryable): Promise<TeamNames> {
    const t = new TeamNames();
    for (const r of await storedTeamNames(db)) t.register(r.region_name, r.name, false);
    return t;
  }

  private register(region: string, name: string, isNew: boolean): string {
    const names = getOrSet(this.byRegion, region, () => new Map());
    const key = foldName(name);
    const known = names.get(key);
    if (known !== undefined) return known;
    names.set(key, name);
    if (isNew) getOrSet(this.added, region, () => new Set()).add(name);
    return name;
  }

  /** Maps `alias` (any spelling of it) to the team `team` of `region`, over what it mapped to before. */
  alias(region: string, alias: string, team: string): void {
    this.register(region, team, false);
    this.byRegion.get(region)?.set(foldName(alias), team);
  }

  /** The distinct team names of `region` (empty for a region no match has). */
  teams(region: string): Set<string> {
    return new Set(this.byRegion.get(region)?.values());
  }

  canonical(region: string, name: string): string {
    return this.register(region, name, true);
  }

  /** The canonical spelling when the team is known, else undefined (odds-only files never create teams). */
  lookup(region: string, name: string): string | undefined {
    return this.byRegion.get(region)?.get(foldName(name));
  }

  /** Pairs of a name added by this ingest and another name of its region that look like one team. */
  nearDuplicates(): NearDuplicateTeams[] {
    const out: NearDuplicateTeams[] = [];
    const seen = new Set<string>();
    for (const [region, added] of this.added) {
      const all = [...this.teams(region)];
      // Spaces aside too: `St. Truiden` ~ `St Truiden` ~ `StTruiden`.
      const loose = new Map(all.map((n) => [n, looseName(n).replaceAll(' ', '')]));
      for (const a of added) {
        const la = loose.get(a) as string;
        for (const b of all) {
          if (a === b) continue;
          const pair = a < b ? [a, b] : [b, a];
          const id = `${region}\u0000${pair[0]}\u0000${pair[1]}`;
          if (seen.has(id)) continue;
          const lb = loose.get(b) as string;
          let reason: string | null = null;
          if (la === lb) reason = 'same letters apart from accents, punctuation or spacing';
          else if (Math.min(la.length, lb.length) >= 6 && distance(la, lb, 1) <= 1)
            reason = 'one letter apart';
          if (reason) {
            seen.add(id);
            out.push({ region, names: pair as [string, string], reason });
          }
        }
      }
    }
    return out.sort((x, y) => (x.region + x.names[0] < y.region + y.names[0] ? -1 : 1));
  }
}
