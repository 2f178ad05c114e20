import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { isUnavailableError, MatchesRepository } from '../../db/index.js';
import { MatchcastError } from '../../domain/index.js';
import type { AppContext } from '../context.js';

const LivescoresQuery = Type.Object(
  {
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
  },
  { additionalProperties: false },
);

const Livescore = Type.Object({
  id: Type.Integer({ description: 'match_id' }),
  startTimeUtc: Type.String({ format: 'date-time', description: 'Kick-off, ISO 8601 UTC' }),
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('finished')]),
  homeTeamName: Type.String(),
  awayTeamName: Type.String(),
  homeScore: Type.Union([Type.Integer(), Type.Null()], { description: 'Null until finished' }),
  awayScore: Type.Union([Type.Integer(), Type.Null()], { description: 'Null until finished' }),
  regionId: Type.Integer(),
  regionName: Type.String(),
  tournamentName: Type.String(),
  season: Type.String(),
});

interface LivescoresQueryString {
  year?: number;
  month?: number;
  limit?: number;
  offset?: number;
}

/** `GET /livescores/` (spec §4.10): matches of a year (or month), newest first, from the relational DB. */
export async function livescoresRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const repo = new MatchesRepository(ctx.db);
  app.get<{ Querystring: LivescoresQueryString }>(
    '/livescores/',
    {
      schema: {
        tags: ['matches'],
        summary: 'Matches of a year or month, ordered by start time descending',
        querystring: LivescoresQuery,
        response: { 200: Type.Array(Livescore) },
      },
    },
    async (request) => {
      const q = request.query;
      try {
        return await repo.listLivescores(
          {
            year: q.year ?? new Date().getUTCFullYear(),
            month: q.month,
            limit: q.limit ?? ctx.config.livescoresDefaultLimit,
            offset: q.offset ?? 0,
          },
          { timeoutMs: ctx.config.dbTimeoutMs },
        );
      } catch (err) {
        if (isUnavailableError(err)) {
          throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', 'Database is unavailable', { cause: err });
        }
        throw err;
      }
    },
  );
}
