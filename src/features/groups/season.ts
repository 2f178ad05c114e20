import { featureGroup } from '../feature-group.js';

/** Matches played this season and whether the team is new to the league this season. */
export const seasonGroup = featureGroup({
  name: 'season',
  columns: ['season_played_home', 'season_played_away', 'new_team_home', 'new_team_away'],
  newTeam: (): { played: number } => ({ played: 0 }),
  newSeason(team) {
    team.played = 0;
  },
  values({ home: h, away: a, homeNew, awayNew }, out) {
    out.season_played_home = h.played;
    out.season_played_away = a.played;
    out.new_team_home = homeNew ? 1 : 0;
    out.new_team_away = awayNew ? 1 : 0;
  },
  update({ home: h, away: a }) {
    h.played++;
    a.played++;
  },
});
