import type { Match, OddsRecord } from '../../src/domain/index.js';
import { marketsFromMatrix, scoreMatrix } from '../../src/model/index.js';

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(rnd: () => number, l: number): number {
  const limit = Math.exp(-l);
  let k = 0;
  let p = rnd();
  while (p > limit) {
    k++;
    p *= rnd();
  }
  return k;
}

/**
 * A small league with 1X2 and O/U 2.5 opening/closing odds priced (with a 5 % margin and noise on
 * the opening) from the true Poisson means; weekly rounds, every match finished.
 */
export function goalsLeague(
  options: { seed?: number; teams?: number; seasons?: number; spread?: number } = {},
): {
  matches: Match[];
  odds: Map<number, OddsRecord>;
} {
  const rnd = prng(options.seed ?? 7);
  const nTeams = options.teams ?? 10;
  const seasons = options.seasons ?? 3;
  const spread = options.spread ?? 0.6;
  const att = Array.from({ length: nTeams }, () => (rnd() - 0.5) * spread);
  const def = Array.from({ length: nTeams }, () => (rnd() - 0.5) * spread);
  const matches: Match[] = [];
  const odds = new Map<number, OddsRecord>();
  let id = 0;
  let t = Date.parse('2018-08-04T15:00:00Z');
  for (let s = 0; s < seasons; s++) {
    for (let round = 0; round < 2 * (nTeams - 1); round++) {
      for (let h = 0; h < nTeams; h += 2) {
        const home = (h + round) % nTeams;
        const away = (h + 1 + 2 * round) % nTeams;
        if (home === away) continue;
        id++;
        const lh = Math.exp(0.3 + att[home] - def[away]);
        const la = Math.exp(0.05 + att[away] - def[home]);
        const price = (noise: number) => {
          const mk = marketsFromMatrix(scoreMatrix(lh * (1 + noise * (rnd() - 0.5)), la, -0.05), 1);
          const m = 1.05;
          return {
            h: 1 / (mk.proba_home * m),
            d: 1 / (mk.proba_draw * m),
            a: 1 / (mk.proba_away * m),
            o: 1 / (mk.over['2.5'] * m),
            u: 1 / ((1 - mk.over['2.5']) * m),
            by: 1 / (mk.btts_yes * m),
            bn: 1 / ((1 - mk.btts_yes) * m),
          };
        };
        const open = price(0.3);
        const close = price(0.05);
        const hs = poisson(rnd, lh);
        const as = poisson(rnd, la);
        matches.push({
          id,
          regionId: 1,
          regionName: 'Testland',
          tournamentName: 'League',
          season: `${2018 + s}-${2019 + s}`,
          startTimeUtc: new Date(t),
          homeTeamName: `Team ${home}`,
          awayTeamName: `Team ${away}`,
          status: 'finished',
          homeScore: hs,
          awayScore: as,
        });
        odds.set(id, {
          match_id: id,
          odd_home: close.h,
          odd_draw: close.d,
          odd_away: close.a,
          open_home: open.h,
          open_draw: open.d,
          open_away: open.a,
          close_home: close.h,
          close_draw: close.d,
          close_away: close.a,
          source: 'test',
          open_over25: open.o,
          open_under25: open.u,
          close_over25: close.o,
          close_under25: close.u,
          open_btts_yes: open.by,
          open_btts_no: open.bn,
          close_btts_yes: close.by,
          close_btts_no: close.bn,
        });
      }
      t += 7 * 86_400_000;
    }
  }
  return { matches, odds };
}
