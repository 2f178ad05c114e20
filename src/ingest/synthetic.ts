import { Prng } from './prng.js';
import type { ParsedMatch } from './types.js';

export interface SyntheticOptions {
  /** PRNG seed: the same seed and `now` give the same data. Default `42`. */
  seed?: number;
  /** Splits played matches from fixtures: ~60 % of the current season's rounds are before it. */
  now?: Date;
  /** Regions, each with one tournament. Default `4`. */
  regions?: number;
  /** Teams per region, or `[min, max]` drawn per region (odd counts rounded up). Default `[12, 16]`. */
  teamsPerRegion?: number | readonly [number, number];
  /** Seasons per region, the last one current; seasons start 52 weeks apart. Default `4`. */
  seasons?: number;
  /** Home advantage on the log goal rate of the home side. Default `0.25` (each region varies it by ±0.05). */
  homeAdvantage?: number;
  /** Adds `delta` to the home advantage of every match kicking off at or after `from` (drift scenarios). Default none. */
  homeAdvantageShift?: { from: Date; delta: number };
  /** Bookmaker margin (overround − 1), drawn uniformly per match from this range. Default `[0.05, 0.06]`. */
  margin?: readonly [number, number];
}

/** A generated source row with the true [home, draw, away] probabilities it was drawn from. */
interface SyntheticMatch extends Omit<ParsedMatch, 'line'> {
  trueProbabilities: [number, number, number];
}

const SYNTHETIC_SOURCE = 'synthetic';

const REGION_NAMES =
  `Norland Sudmark Ostria Westhaven Caldera Marisca Tundria Solvane Verdania Ardenne Kestria
  Lumeria`.split(/\s+/);
const TOWNS = `Ashford Brackwater Carrow Dunmore Eastwick Fallowby Glenarm Harrowgate Ivybridge Jarrow
  Kingsmead Larkhill Marlow Northam Oakridge Penrith Queensport Redcliff Stanmore Thornbury Upton
  Valemont Whitby Yarmouth Alderney Belmont Corbridge Dovercourt Elmstead Farleigh Greystone
  Holloway Ironbridge Kelso Lindholm Moorfield Newhaven Oldcastle Porthaven Ravensworth Saltmarsh
  Tidewater Underhill Westbury Ambleside Blackmoor Coldstream Daleford Eastmoor Foxley Grantham
  Highcliffe Kirkby Lowestoft Millbrook Netherby Oxley Pinewood Rosedale Silverdale Tarnside
  Wetherby Almsford Brightwater Copperfield Deepdene Evenwood Fernhill Goldhaven Hartwell Linford
  Marchmont Northfleet Orchardleigh Ridgeway Stonebridge`.split(/\s+/);
const SUFFIXES = 'FC United City Athletic Rovers Wanderers Albion Town Sporting Rangers'.split(' ');

/** Kick-off slots of a weekly round: day offset from the round's Saturday and UTC hour/minute. */
const SLOTS: readonly [number, number, number][] = [
  [0, 12, 30],
  [0, 15, 0],
  [0, 17, 30],
  [0, 19, 45],
  [1, 13, 0],
  [1, 15, 30],
  [1, 18, 0],
  [-1, 19, 0],
];

const WEEK_MS = 7 * 86_400_000;
const BASE_LOG_RATE = Math.log(1.2);
const MAX_GOALS = 10;

function poissonPmf(lambda: number): number[] {
  const out = [Math.exp(-lambda)];
  for (let k = 1; k <= MAX_GOALS; k++) out.push((out[k - 1] * lambda) / k);
  return out;
}

/** [home, draw, away] of independent Poisson goals, normalised over the 0..10 grid. */
function outcomeProbabilities(lambdaHome: number, lambdaAway: number): [number, number, number] {
  const h = poissonPmf(lambdaHome);
  const a = poissonPmf(lambdaAway);
  const p = [0, 0, 0];
  for (let i = 0; i <= MAX_GOALS; i++)
    for (let j = 0; j <= MAX_GOALS; j++) p[i > j ? 0 : i === j ? 1 : 2] += h[i] * a[j];
  const s = p[0] + p[1] + p[2];
  return [p[0] / s, p[1] / s, p[2] / s];
}

/** Decimal odds with a proportional margin: Σ 1/odd = 1 + margin (before rounding to cents). */
function price(p: [number, number, number], margin: number): [number, number, number] {
  return p.map((x) => Math.max(1.01, Math.round(100 / (x * (1 + margin))) / 100)) as [number, number, number];
}

/** Double round robin by the circle method: rounds of [home, away] index pairs, second half mirrored. */
function doubleRoundRobin(n: number): [number, number][][] {
  const ids = Array.from({ length: n }, (_, i) => i);
  const first: [number, number][][] = [];
  for (let r = 0; r < n - 1; r++) {
    const round: [number, number][] = [];
    for (let i = 0; i < n / 2; i++) {
      const a = ids[i];
      const b = ids[n - 1 - i];
      // Alternate venues so no team plays at home every week.
      round.push((i === 0 ? r % 2 === 0 : (r + i) % 2 === 0) ? [a, b] : [b, a]);
    }
    first.push(round);
    ids.splice(1, 0, ids.pop() as number);
  }
  return [...first, ...first.map((round) => round.map(([h, a]) => [a, h] as [number, number]))];
}

interface Team {
  name: string;
  attack: number;
  defence: number;
}

function recentre(teams: Team[]): void {
  const mean = (f: (t: Team) => number) => teams.reduce((s, t) => s + f(t), 0) / teams.length;
  const [ma, md] = [mean((t) => t.attack), mean((t) => t.defence)];
  for (const t of teams) {
    t.attack -= ma;
    t.defence -= md;
  }
}

/** Monday 00:00 UTC of the week holding `t`. */
function weekStart(t: Date): number {
  const day = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
  const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return day - dow * 86_400_000;
}

/** A deterministic league, generated a season at a time as iterated (by kick-off, region, home team). */
export function streamSyntheticLeague(options: SyntheticOptions = {}): {
  regions: { name: string; tournament: string; teams: string[] }[];
  seasons: Iterable<SyntheticMatch[]>;
} {
  const rng = new Prng(options.seed ?? 42);
  const now = options.now ?? new Date();
  const regionCount = options.regions ?? 4;
  const seasons = options.seasons ?? 4;
  const teamsOpt = options.teamsPerRegion ?? [12, 16];
  const [marginLo, marginHi] = options.margin ?? [0.05, 0.06];
  const baseHome = options.homeAdvantage ?? 0.25;
  if (!Number.isInteger(regionCount) || regionCount < 1)
    throw new RangeError('regions must be a positive integer');
  if (!Number.isInteger(seasons) || seasons < 1) throw new RangeError('seasons must be a positive integer');

  const towns = rng.shuffle(TOWNS);
  const suffixes = rng.shuffle(SUFFIXES);
  let townAt = 0;
  const regions = Array.from({ length: regionCount }, (_, r) => {
    const raw = typeof teamsOpt === 'number' ? teamsOpt : rng.int(teamsOpt[0], teamsOpt[1]);
    const n = Math.max(2, raw + (raw % 2));
    const teams: Team[] = Array.from({ length: n }, () => {
      const i = townAt++;
      const town = towns[i % towns.length];
      const name = `${town} ${suffixes[i % suffixes.length]}${i >= towns.length ? ` ${Math.floor(i / towns.length) + 1}` : ''}`;
      return { name, attack: rng.normal(0, 0.2), defence: rng.normal(0, 0.2) };
    });
    recentre(teams);
    return {
      name: REGION_NAMES[r] ?? `Region ${r + 1}`,
      tournament: 'Premier Division',
      teams,
      homeAdvantage: baseHome + rng.normal(0, 0.05),
      rounds: doubleRoundRobin(n),
    };
  });

  // The current season's first Saturday lies so that ~60 % of the shortest schedule is already played.
  const minRounds = Math.min(...regions.map((r) => r.rounds.length));
  const playedRounds = Math.max(1, Math.floor(minRounds * 0.6));
  const firstSaturday = weekStart(now) + 5 * 86_400_000 - playedRounds * WEEK_MS;
  const currentStartYear = new Date(firstSaturday).getUTCFullYear();
  const shift = options.homeAdvantageShift;

  function* generate(): Generator<SyntheticMatch[]> {
    for (let s = 0; s < seasons; s++) {
      const matches: SyntheticMatch[] = [];
      const seasonStart = firstSaturday - (seasons - 1 - s) * 52 * WEEK_MS;
      const startYear = currentStartYear - (seasons - 1 - s);
      const season = `${startYear}-${startYear + 1}`;
      for (const region of regions) {
        if (s > 0) {
          // Close season: squads change; strengths drift but revert towards the mean, so spreads stay stable.
          for (const t of region.teams) {
            t.attack = 0.8 * t.attack + rng.normal(0, 0.12);
            t.defence = 0.8 * t.defence + rng.normal(0, 0.12);
          }
          recentre(region.teams);
        }
        region.rounds.forEach((round, k) => {
          const saturday = seasonStart + k * WEEK_MS;
          const slots = rng.shuffle(SLOTS);
          round.forEach(([hi, ai], i) => {
            const [dayOffset, hour, minute] = slots[i % slots.length];
            const start = new Date(saturday + dayOffset * 86_400_000 + (hour * 60 + minute) * 60_000);
            const home = region.teams[hi];
            const away = region.teams[ai];
            const homeAdv = region.homeAdvantage + (shift && start >= shift.from ? shift.delta : 0);
            const lambdaHome = Math.exp(BASE_LOG_RATE + home.attack - away.defence + homeAdv);
            const lambdaAway = Math.exp(BASE_LOG_RATE + away.attack - home.defence);
            const truth = outcomeProbabilities(lambdaHome, lambdaAway);
            // Bookmakers see the rates with error; closer to kick-off the error shrinks.
            const seen = (sd: number) =>
              outcomeProbabilities(
                lambdaHome * Math.exp(rng.normal(0, sd)),
                lambdaAway * Math.exp(rng.normal(0, sd)),
              );
            const [opening, closing] = [seen(0.12), seen(0.04)];
            const margin = marginLo + (marginHi - marginLo) * rng.next();
            const hg = rng.poisson(lambdaHome);
            const ag = rng.poisson(lambdaAway);
            const played = start.getTime() < now.getTime();
            matches.push({
              match: {
                regionName: region.name,
                tournamentName: region.tournament,
                season,
                startTimeUtc: start,
                homeTeamName: home.name,
                awayTeamName: away.name,
                status: played ? 'finished' : 'scheduled',
                homeScore: played ? hg : null,
                awayScore: played ? ag : null,
              },
              prices: [
                { market: '1x2', kind: 'opening', prices: price(opening, margin) },
                ...(played
                  ? [{ market: '1x2' as const, kind: 'closing' as const, prices: price(closing, margin) }]
                  : []),
              ],
              source: SYNTHETIC_SOURCE,
              trueProbabilities: truth,
            });
          });
          // Form within the season: a small weekly random walk.
          for (const t of region.teams) {
            t.attack += rng.normal(0, 0.015);
            t.defence += rng.normal(0, 0.015);
          }
        });
      }
      matches.sort(
        (a, b) =>
          a.match.startTimeUtc.getTime() - b.match.startTimeUtc.getTime() ||
          a.match.regionName.localeCompare(b.match.regionName) ||
          a.match.homeTeamName.localeCompare(b.match.homeTeamName),
      );
      yield matches;
    }
  }
  return {
    regions: regions.map((r) => ({
      name: r.name,
      tournament: r.tournament,
      teams: r.teams.map((t) => t.name),
    })),
    seasons: generate(),
  };
}
