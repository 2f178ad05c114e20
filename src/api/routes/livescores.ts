import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { isUnavailableError, MatchesRepository } from '../../db/index.js';
import { MatchcastError } from '../../domain/index.js';
import {
  EXAMPLE_LIVESCORE,
  errorResponses,
  Livescore,
  LivescoresQuery,
  respond,
  route,
} from '../../schemas/index.js';
import type { AppContext } from '../context.js';

/** `GET /livescores/` (spec §4.10): matches of a year (or month), newest first, from the relational DB. */
export async function livescoresRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const repo = new MatchesRepository(ctx.db);
  app.get(
    '/livescores/',
    route('matches', {
      summary: 'Matches of a year or month, ordered by start time descending',
      querystring: LivescoresQuery,
      response: {
        200: respond(Type.Array(Livescore), 'Matches of the period, newest first', [[EXAMPLE_LIVESCORE]]),
        ...errorResponses('MC_ERR_DATABASE_UNAVAILABLE'),
      },
    }),
    async (request) => {
      const q = request.query;
      try {
        return await repo.listLivescores(
          {
            // The service clock: a replay's "now" decides the default year.
            year: q.year ?? (ctx.clock?.now() ?? new Date()).getUTCFullYear(),
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
