import { DAY_MS } from '../../domain/index.js';
import { featureGroup } from '../feature-group.js';

/** Days since each team's previous fixture on the schedule, capped at `restCapDays`. */
export const restGroup = featureGroup({
  name: 'rest',
  columns: ['rest_days_home', 'rest_days_away'],
  newTeam: (): { lastFixtureMs: number | null } => ({ lastFixtureMs: null }),
  values({ home: h, away: a, t, settings }, out) {
    const cap = settings.restCapDays;
    out.rest_days_home = h.lastFixtureMs === null ? null : Math.min(cap, (t - h.lastFixtureMs) / DAY_MS);
    out.rest_days_away = a.lastFixtureMs === null ? null : Math.min(cap, (t - a.lastFixtureMs) / DAY_MS);
  },
  // Every fixture on the schedule counts, played or still to come (rest is known from the fixture list).
  scheduled({ home: h, away: a, t }) {
    h.lastFixtureMs = t;
    a.lastFixtureMs = t;
  },
});
