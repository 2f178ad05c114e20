import type { Queryable } from '../db/index.js';
import { MatchcastError } from '../domain/index.js';
import { foldName, looseName, TeamNames } from '../ingest/index.js';

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  const t = s.replace(/ /g, '');
  for (let i = 0; i < t.length - 1; i++) {
    const g = t.slice(i, i + 2);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

function dice(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  let common = 0;
  let total = 0;
  for (const [g, n] of x) {
    common += Math.min(n, y.get(g) ?? 0);
    total += n;
  }
  for (const n of y.values()) total += n;
  return total === 0 ? 0 : (2 * common) / total;
}

const EXPAND: Record<string, string> = { utd: 'united', man: 'manchester', st: 'saint', ath: 'athletic' };

/** 0..1: the better of letter-pair overlap and shared word prefixes (`Man United` ~ `Manchester United`). */
function similarity(a: string, b: string): number {
  const la = looseName(a);
  const lb = looseName(b);
  if (la === lb) return 1;
  const words = (s: string) =>
    s
      .split(' ')
      .filter(Boolean)
      .map((w) => EXPAND[w] ?? w);
  const [short, long] = [words(la), words(lb)].sort((p, q) => p.length - q.length);
  const prefixed = short.filter((w) => long.some((v) => v.startsWith(w) || w.startsWith(v))).length;
  const wordScore = short.length === 0 ? 0 : (prefixed / long.length + prefixed / short.length) / 2;
  return Math.max(dice(la, lb), wordScore);
}

/** Stored team names plus `team_aliases`; anything else is unknown, never made a team by a poll. */
export async function loadTeamResolver(db: Queryable): Promise<TeamNames> {
  const names = await TeamNames.load(db);
  for (const a of await listTeamAliases(db)) names.alias(a.region, a.alias, a.team);
  return names;
}

/** Up to `n` known team names of the region most like `name`, best first. */
export function closestTeams(names: TeamNames, region: string, name: string, n = 3): string[] {
  return [...names.teams(region)]
    .map((t) => ({ t, s: similarity(name, t) }))
    .filter((x) => x.s >= 0.3)
    .sort((a, b) => b.s - a.s || (a.t < b.t ? -1 : 1))
    .slice(0, n)
    .map((x) => x.t);
}

async function regionsOfTeam(db: Queryable, team: string): Promise<string[]> {
  const rows = await db.query<{ region_name: string }>(
    `SELECT DISTINCT region_name FROM matches WHERE home_team_name = $1 OR away_team_name = $1
     UNION SELECT region_name FROM team_aliases WHERE team_name = $1 AND alias = team_name
     ORDER BY 1`,
    [team],
  );
  return rows.map((r) => r.region_name);
}

/** Maps `alias` to the known `team` (default region: where it plays); `alias === team` accepts a new team. */
export async function setTeamAlias(
  db: Queryable,
  alias: string,
  team: string,
  region?: string,
): Promise<{ region: string; alias: string; team: string }> {
  const a = alias.trim().replace(/\s+/g, ' ');
  const t = team.trim().replace(/\s+/g, ' ');
  if (a === '' || t === '') throw new MatchcastError('MC_ERR_VALIDATION', 'team names must not be empty');
  if (a.length > 100 || t.length > 100)
    throw new MatchcastError('MC_ERR_VALIDATION', 'team names are at most 100 characters');
  let where = region;
  if (a === t) {
    if (!where) throw new MatchcastError('MC_ERR_VALIDATION', 'a new team needs --region');
  } else {
    const regions = await regionsOfTeam(db, t);
    if (regions.length === 0)
      throw new MatchcastError('MC_ERR_NOT_FOUND', `no team "${t}" is known; an alias maps to a known team`);
    if (where && !regions.includes(where))
      throw new MatchcastError('MC_ERR_NOT_FOUND', `"${t}" plays in ${regions.join(', ')}, not in ${where}`);
    if (!where && regions.length > 1)
      throw new MatchcastError('MC_ERR_VALIDATION', `"${t}" plays in ${regions.join(', ')}: give --region`);
    where ??= regions[0];
  }
  await db.query(
    `INSERT INTO team_aliases (region_name, alias_key, alias, team_name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (region_name, alias_key) DO UPDATE SET alias = EXCLUDED.alias, team_name = EXCLUDED.team_name`,
    [where, foldName(a), a, t],
  );
  return { region: where as string, alias: a, team: t };
}

export async function listTeamAliases(
  db: Queryable,
): Promise<{ region: string; alias: string; team: string }[]> {
  const rows = await db.query<{ region_name: string; alias: string; team_name: string }>(
    'SELECT region_name, alias, team_name FROM team_aliases ORDER BY region_name, alias',
  );
  return rows.map((r) => ({ region: r.region_name, alias: r.alias, team: r.team_name }));
}

export async function removeTeamAlias(db: Queryable, alias: string, region?: string): Promise<number> {
  const rows = await db.query(
    `DELETE FROM team_aliases WHERE alias_key = $1 AND ($2::text IS NULL OR region_name = $2) RETURNING alias`,
    [foldName(alias), region ?? null],
  );
  return rows.length;
}
