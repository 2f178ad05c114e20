import type { Match, OddsRecord } from '../../src/domain/index.js';

/** Small deterministic PRNG (mulberry32) so fixtures are identical on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(lambda: number, r: () => number): number {
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= r();
  } while (p > l);
  return k - 1;
}

export interface LeagueOptions {
  seed?: number;
  regions?: number;
  seasons?: number;
  teams?: number;
}

/**
 * Double round robins in several regions and seasons; each new season one team is relegated and a
 * new one promoted. Rounds are weekly with all matches of a round at the same kick-off. Every 7th
 * match has no odds; the others have opening and closing odds with a ~5 % margin.
 */
export function syntheticLeague(options: LeagueOptions = {}): {
  matches: Match[];
  odds: Map<number, OddsRecord>;
} {
  const r = rng(options.seed ?? 1);
  const nRegions = options.regions ?? 2;
  const nSeasons = options.seasons ?? 3;
  const nTeams = options.teams ?? 6;
  const matches: Match[] = [];
  const odds = new Map<number, OddsRecord>();
  let id = 0;
  for (let reg = 1; reg <= nRegions; reg++) {
    let teams = Array.from({ length: nTeams }, (_, i) => ({ name: `R${reg}T${i}`, strength: r() - 0.5 }));
    let next = nTeams;
    for (let s = 0; s < nSeasons; s++) {
      const season = `${2018 + s}-${2019 + s}`;
      if (s > 0) {
        teams.sort((a, b) => a.strength - b.strength);
        teams = [{ name: `R${reg}T${next++}`, strength: r() - 0.8 }, ...teams.slice(1)];
      }
      const pairs: Array<[number, number]> = [];
      for (let h = 0; h < nTeams; h++) for (let a = 0; a < nTeams; a++) if (h !== a) pairs.push([h, a]);
      const perRound = nTeams / 2;
      pairs.forEach(([h, a], k) => {
        const round = Math.floor(k / perRound);
        const start = new Date(Date.UTC(2018 + s, 7, 4 + 7 * round, 14 + reg, 0));
        const home = teams[h];
        const away = teams[a];
        const lh = Math.exp(0.25 + home.strength - away.strength);
        const la = Math.exp(home.strength * -1 + away.strength);
        const hs = poisson(lh, r);
        const as = poisson(la, r);
        id++;
        matches.push({
          id,
          regionId: reg,
          regionName: `region-${reg}`,
          tournamentName: 'league',
          season,
          startTimeUtc: start,
          homeTeamName: home.name,
          awayTeamName: away.name,
          status: 'finished',
          homeScore: hs,
          awayScore: as,
        });
        if (id % 7 !== 0) {
          const ph = 0.25 + 0.4 * r();
          const pd = 0.25;
          const pa = 1 - ph - pd;
          const o = (p: number, m: number) => Math.round((1 / (p * m)) * 100) / 100;
          odds.set(id, {
            match_id: id,
            odd_home: o(ph, 1.05),
            odd_draw: o(pd, 1.05),
            odd_away: o(pa, 1.05),
            open_home: o(ph, 1.06),
            open_draw: o(pd, 1.06),
            open_away: o(pa, 1.06),
            close_home: o(ph, 1.05),
            close_draw: o(pd, 1.05),
            close_away: o(pa, 1.05),
            source: 'synthetic-test',
          });
        }
      });
    }
  }
  return { matches, odds };
}
