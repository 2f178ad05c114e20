import { featureGroup } from '../feature-group.js';
import { eloDelta, eloExpectedHome } from '../ratings.js';

/** Elo ratings (goal-difference weighted); a promoted team starts at the league-low prior. */
export const eloGroup = featureGroup({
  name: 'elo',
  columns: ['elo_home', 'elo_away', 'elo_diff', 'elo_expected_home'],
  newTeam: (s): { elo: number } => ({ elo: s.elo.initial }),
  promote(team, prior, fresh) {
    const e = prior((t) => t.elo);
    // A returning team keeps its own rating when that is already below the league-low prior.
    if (e !== null) team.elo = fresh ? e : Math.min(team.elo, e);
  },
  values({ home: h, away: a, settings }, out) {
    out.elo_home = h.elo;
    out.elo_away = a.elo;
    out.elo_diff = h.elo - a.elo;
    out.elo_expected_home = eloExpectedHome(h.elo, a.elo, settings.elo.homeAdvantage);
  },
  update({ home: h, away: a, result, settings }) {
    const d = eloDelta(h.elo, a.elo, result.home - result.away, settings.elo);
    h.elo += d;
    a.elo -= d;
  },
});
