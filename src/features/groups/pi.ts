import { featureGroup } from '../feature-group.js';
import { type PiTeam, piExpectedGoals, piUpdate } from '../ratings.js';

/** Pi-ratings (separate home and away strength); a promoted team starts at the league-low prior. */
export const piGroup = featureGroup({
  name: 'pi',
  columns: ['pi_home', 'pi_away', 'pi_expected_gd'],
  newTeam: (): PiTeam => ({ home: 0, away: 0 }),
  promote(team, prior, fresh) {
    const ph = prior((t) => t.home);
    const pa = prior((t) => t.away);
    if (ph !== null) team.home = fresh ? ph : Math.min(team.home, ph);
    if (pa !== null) team.away = fresh ? pa : Math.min(team.away, pa);
  },
  values({ home: h, away: a, settings }, out) {
    out.pi_home = h.home;
    out.pi_away = a.away;
    out.pi_expected_gd = piExpectedGoals(h.home, settings.pi.c) - piExpectedGoals(a.away, settings.pi.c);
  },
  update({ home: h, away: a, result, settings }) {
    piUpdate(h, a, result.home - result.away, settings.pi);
  },
});
