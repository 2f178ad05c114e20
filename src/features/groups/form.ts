import { featureGroup } from '../feature-group.js';

interface PlayedGame {
  points: number;
  gf: number;
  ga: number;
  home: boolean;
}

/** Recent form: points and goals per game over the last `formWindow` games, overall and at the venue. */
export const formGroup = featureGroup({
  name: 'form',
  columns: [
    'form_points_home',
    'form_points_away',
    'form_gf_home',
    'form_ga_home',
    'form_gf_away',
    'form_ga_away',
    'form_venue_points_home',
    'form_venue_points_away',
    'form_venue_gd_home',
    'form_venue_gd_away',
  ],
  newTeam: (): { games: PlayedGame[] } => ({ games: [] }),
  values({ home: h, away: a, settings }, out) {
    const n = settings.formWindow;
    const hf = form(h.games, n, null);
    const af = form(a.games, n, null);
    const hv = form(h.games, n, true);
    const av = form(a.games, n, false);
    out.form_points_home = hf?.points ?? null;
    out.form_points_away = af?.points ?? null;
    out.form_gf_home = hf?.gf ?? null;
    out.form_ga_home = hf?.ga ?? null;
    out.form_gf_away = af?.gf ?? null;
    out.form_ga_away = af?.ga ?? null;
    out.form_venue_points_home = hv?.points ?? null;
    out.form_venue_points_away = av?.points ?? null;
    out.form_venue_gd_home = hv ? hv.gf - hv.ga : null;
    out.form_venue_gd_away = av ? av.gf - av.ga : null;
  },
  update({ home: h, away: a, result }) {
    const gd = result.home - result.away;
    const hp = gd > 0 ? 3 : gd === 0 ? 1 : 0;
    const ap = gd < 0 ? 3 : gd === 0 ? 1 : 0;
    h.games.push({ points: hp, gf: result.home, ga: result.away, home: true });
    a.games.push({ points: ap, gf: result.away, ga: result.home, home: false });
  },
});

/** Per-game means over the last `n` played games (optionally at one venue); null with no history. */
function form(
  games: readonly PlayedGame[],
  n: number,
  home: boolean | null,
): { points: number; gf: number; ga: number } | null {
  let cnt = 0;
  let pts = 0;
  let gf = 0;
  let ga = 0;
  for (let k = games.length - 1; k >= 0 && cnt < n; k--) {
    const g = games[k];
    if (home !== null && g.home !== home) continue;
    cnt++;
    pts += g.points;
    gf += g.gf;
    ga += g.ga;
  }
  if (cnt === 0) return null;
  return { points: pts / cnt, gf: gf / cnt, ga: ga / cnt };
}
