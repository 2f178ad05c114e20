import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { MatchcastError } from '../../domain/index.js';
import {
  EXAMPLE_CARD,
  EXAMPLE_ODDS,
  EXAMPLE_PRECOMPUTED,
  EXAMPLE_PREDICTION_ROW,
  EXAMPLE_REGION_ROI,
  errorResponses,
  MatchCard,
  MatchIdParams,
  noBody,
  OddsRecord,
  PrecomputedPrediction,
  PredictionRow,
  RegionRoi,
  respond,
  route,
} from '../../schemas/index.js';
import { type EncodedBody, identityStream, negotiateEncoding, notModified } from '../../serving/index.js';
import type { AppContext } from '../context.js';
import { holdUntilTurnEnd } from '../plugins/turn-writes.js';

const UNAVAILABLE = errorResponses('MC_ERR_PREDICTIONS_UNAVAILABLE');
/** Odds and ROI that exist but were never read (object store down since start): not `[]`. */
const STORE_UNAVAILABLE = errorResponses('MC_ERR_STORE_UNAVAILABLE');
const NOT_MODIFIED = { 304: noBody('Not Modified: If-None-Match names the current content (ETag)') };
const RAW_NOTE =
  'The body is pre-serialised once per file load (identity, gzip and br by Accept-Encoding, with a strong ETag; If-None-Match → 304); the schema describes that payload.';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends JSON bytes serialised ahead of time (the route's schema describes them, no serializer runs). */
export const sendBytes = (reply: FastifyReply, json: Buffer | Readable) =>
  reply.header('content-type', JSON_TYPE).send(json);

/** Writes one representation of a pre-serialised body, or 304 when the client holds the current one. */
function sendEncoded(request: FastifyRequest, reply: FastifyReply, body: EncodedBody): void {
  const coding = negotiateEncoding(request.headers['accept-encoding']);
  // Caches may keep the body but must revalidate: a new file can land at any poll.
  reply.headers({ vary: 'Accept-Encoding', etag: body.etags[coding], 'cache-control': 'no-cache' });
  if (notModified(request.headers['if-none-match'], body)) reply.code(304).send();
  else if (coding === 'identity') sendBytes(reply, body.identity ?? identityStream(body));
  else reply.header('content-type', JSON_TYPE).header('content-encoding', coding).send(body[coding]);
}

/** The precomputed read paths (spec §4.3–4.7): memory reads over `ctx.views`, no queue, no model. */
export async function precomputedRoutes(root: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { views } = ctx;

  /** A bulk read: the whole pre-encoded body of a loaded file, with conditional requests. */
  const bulk = <T extends TSchema>(
    url: string,
    summary: string,
    [row, what, example]: [T, string, unknown],
    errors: object,
    body: () => EncodedBody,
  ) =>
    app.get(
      url,
      {
        onSend: holdUntilTurnEnd,
        ...route('predict', {
          summary,
          description: RAW_NOTE,
          response: { 200: respond(Type.Array(row), what, [[example]]), ...NOT_MODIFIED, ...errors },
        }),
      },
      (request, reply) => sendEncoded(request, reply, body()),
    );

  bulk(
    '/predict/predictions/',
    'Every precomputed prediction (spec §2.1, camelCase display columns; future and past matches)',
    [PredictionRow, 'Every prediction row of the current predictions file', EXAMPLE_PREDICTION_ROW],
    UNAVAILABLE,
    () => views.predictionsBody(),
  );

  app.get(
    '/predict/precomputed/:match_id',
    {
      onSend: holdUntilTurnEnd,
      ...route('predict', {
        summary: 'One precomputed prediction (spec §2.2, snake_case)',
        description: 'A map lookup in the loaded predictions file; no task queue, no registry call.',
        params: MatchIdParams,
        response: {
          200: respond(PrecomputedPrediction, 'The precomputed prediction of the match', [
            EXAMPLE_PRECOMPUTED,
          ]),
          ...errorResponses('MC_ERR_MATCH_NOT_FOUND', 'MC_ERR_PREDICTIONS_UNAVAILABLE'),
        },
      }),
    },
    (request, reply) => {
      const id = request.params.match_id;
      const json = views.precomputedJson(id);
      if (json === undefined)
        throw new MatchcastError(
          'MC_ERR_MATCH_NOT_FOUND',
          `Match ${id} is not in the current predictions file`,
        );
      sendBytes(reply, json);
    },
  );

  bulk(
    '/predict/cards/',
    'Match cards: predictions joined with bookmaker odds, outcome for finished matches, sorted by kick-off',
    [MatchCard, 'One card per match, sorted by kick-off', EXAMPLE_CARD],
    UNAVAILABLE,
    () => views.cardsBody(),
  );

  bulk(
    '/predict/odds/',
    'Bookmaker 1X2 odds per match (spec §2.5); [] when the odds file has not been produced',
    [OddsRecord, 'Odds per match; [] when the odds file is absent', EXAMPLE_ODDS],
    STORE_UNAVAILABLE,
    () => views.oddsBody(),
  );

  app.get(
    '/predict/region-roi/',
    {
      onSend: holdUntilTurnEnd,
      ...route('predict', {
        summary: 'Flat-stake ROI per region (spec §2.6); [] when roi_by_region.csv has not been produced',
        description:
          'Cached in memory; re-checked against the object store at most every ROI_RECHECK_MS (60 s).',
        response: {
          200: respond(Type.Array(RegionRoi), 'ROI per region; [] when roi_by_region.csv is absent', [
            [EXAMPLE_REGION_ROI],
          ]),
          ...STORE_UNAVAILABLE,
        },
      }),
    },
    async () => [...(await views.regionRoi())],
  );
}
