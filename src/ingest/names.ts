// Display names of regions and tournaments: both layouts map to the same names so they share region ids.

/** `south-korea` → `South Korea`. */
export function regionName(slug: string): string {
  return slug
    .trim()
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** A `Map`, as every table keyed by a name from a file: an object would answer `__proto__` itself. */
const LEAGUE_NAMES: ReadonlyMap<string, string> = new Map([
  ['jupiler-pro-league', 'Jupiler Pro League'],
  ['premier-league', 'Premier League'],
  ['ligue-1', 'Ligue 1'],
  ['ligue-2', 'Ligue 2'],
  ['bundesliga', 'Bundesliga'],
  ['2-bundesliga', '2. Bundesliga'],
  ['serie-a', 'Serie A'],
  ['serie-b', 'Serie B'],
  ['eredivisie', 'Eredivisie'],
  ['laliga', 'LaLiga'],
  ['laliga2', 'LaLiga2'],
]);

export function tournamentName(league: string): string {
  const slug = league.trim().toLowerCase();
  return LEAGUE_NAMES.get(slug) ?? regionName(league);
}

/** football-data.co.uk division codes (`Div`) → region and tournament. */
export const DIVISIONS: ReadonlyMap<string, { region: string; tournament: string }> = new Map([
  ['E0', { region: 'England', tournament: 'Premier League' }],
  ['E1', { region: 'England', tournament: 'Championship' }],
  ['E2', { region: 'England', tournament: 'League One' }],
  ['E3', { region: 'England', tournament: 'League Two' }],
  ['EC', { region: 'England', tournament: 'National League' }],
  ['SC0', { region: 'Scotland', tournament: 'Premiership' }],
  ['SC1', { region: 'Scotland', tournament: 'Championship' }],
  ['SC2', { region: 'Scotland', tournament: 'League One' }],
  ['SC3', { region: 'Scotland', tournament: 'League Two' }],
  ['D1', { region: 'Germany', tournament: 'Bundesliga' }],
  ['D2', { region: 'Germany', tournament: '2. Bundesliga' }],
  ['I1', { region: 'Italy', tournament: 'Serie A' }],
  ['I2', { region: 'Italy', tournament: 'Serie B' }],
  ['SP1', { region: 'Spain', tournament: 'LaLiga' }],
  ['SP2', { region: 'Spain', tournament: 'LaLiga2' }],
  ['F1', { region: 'France', tournament: 'Ligue 1' }],
  ['F2', { region: 'France', tournament: 'Ligue 2' }],
  ['N1', { region: 'Netherlands', tournament: 'Eredivisie' }],
  ['B1', { region: 'Belgium', tournament: 'Jupiler Pro League' }],
  ['P1', { region: 'Portugal', tournament: 'Primeira Liga' }],
  ['T1', { region: 'Turkey', tournament: 'Super Lig' }],
  ['G1', { region: 'Greece', tournament: 'Super League' }],
]);

/** European seasons start in July: a match in 2023-08 or 2024-05 is in `2023-2024`. */
export function seasonOf(date: Date): string {
  const y = date.getUTCFullYear();
  const start = date.getUTCMonth() >= 6 ? y : y - 1;
  return `${start}-${start + 1}`;
}
