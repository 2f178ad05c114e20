import { type Static, Type } from 'typebox';
import { DateTime, Literals, Nullable, Strict } from './common.js';

/** Query of `GET /livescores/` (spec §4.10). */
export const LivescoresQuery = Strict({
  year: Type.Optional(
    Type.Integer({
      minimum: 1900,
      maximum: 2100,
      description: 'UTC calendar year. Default: the current UTC year.',
    }),
  ),
  month: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 12,
      description: 'Month 1–12 of `year`. Default: the whole year.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: 'Rows to return, 1–10000. Default `LIVESCORES_DEFAULT_LIMIT` (100).',
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Rows to skip. Default 0.' }),
  ),
});

/** Spec §2.12: a match row from the relational database. */
export const Livescore = Type.Object({
  id: Type.Integer({ description: 'match_id' }),
  startTimeUtc: DateTime('kick-off, ISO 8601 UTC'),
  status: Literals(['scheduled', 'finished']),
  homeTeamName: Type.String(),
  awayTeamName: Type.String(),
  homeScore: Nullable(Type.Integer(), 'null until finished'),
  awayScore: Nullable(Type.Integer(), 'null until finished'),
  regionId: Type.Integer(),
  regionName: Type.String(),
  tournamentName: Type.String(),
  season: Type.String(),
});
export type Livescore = Static<typeof Livescore>;

export const EXAMPLE_LIVESCORE: Livescore = {
  id: 1234566,
  startTimeUtc: '2024-05-04T16:30:00.000Z',
  status: 'finished',
  homeTeamName: 'Liverpool',
  awayTeamName: 'Everton',
  homeScore: 2,
  awayScore: 0,
  regionId: 1,
  regionName: 'England',
  tournamentName: 'Premier League',
  season: '2023-2024',
};
