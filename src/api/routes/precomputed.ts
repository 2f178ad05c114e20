import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MatchcastError } from '../../domain/index.js';
import {
  type EncodedBody,
  identityStream,
  negotiateEncoding,
  notModified,
  type ServingViews,
  type Views,
} from '../../serving/index.js';
import type { AppContext } from '../context.js';

const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const Proba = (what: string) => Type.Number({ minimum: 0, maximum: 1, description: `${what} probability` });
const PredictedClass = Type.Integer({
  minimum: 0,
  maximum: 2,
  description: 'argmax of the probabilities: 0 = home win, 1 = draw, 2 = away win',
});
const PredictedLabel = Type.String({ description: '`home_win`, `draw` or `away_win`' });
const ModelStage = Type.String({
  description: 'registry alias that produced the row (`champion`, or `backtest` for walk-forward rows)',
});
const ModelRunId = Type.String({ description: 'registry run id, for lineage' });

/** Spec §2.1. */
export const PredictionRowSchema = Type.Object(
  {
    match_id: Type.Integer({ description: 'match identifier' }),
    homeTeamName: Type.String(),
    awayTeamName: Type.String(),
    startTimeUtc: Type.String({ format: 'date-time', description: 'kick-off, ISO 8601 UTC' }),
    proba_home: Proba('home win'),
    proba_draw: Proba('draw'),
    proba_away: Proba('away win'),
    predicted_class: PredictedClass,
    predicted_label: PredictedLabel,
    is_future: Type.Boolean({ description: 'true if the match has not started' }),
    model_stage: ModelStage,
    model_run_id: ModelRunId,
  },
  { additionalProperties: false },
);

/** Spec §2.2. */
export const PrecomputedSchema = Type.Object(
  {
    match_id: Type.Integer(),
    proba_home: Proba('home win'),
    proba_draw: Proba('draw'),
    proba_away: Proba('away win'),
    predicted_class: PredictedClass,
    predicted_label: PredictedLabel,
    is_future: Type.Boolean(),
    start_time_utc: Type.String({ format: 'date-time', description: 'kick-off, ISO 8601 UTC' }),
    home_team_name: Type.String(),
    away_team_name: Type.String(),
    model_run_id: ModelRunId,
    model_stage: ModelStage,
    predictions_computed_at: Type.String({
      format: 'date-time',
      description: 'when the batch inference stage produced the predictions',
    }),
  },
  { additionalProperties: false },
);

/** The match card (TEAM.md contract; the spec leaves its field names open, §2.4). */
export const MatchCardSchema = Type.Object(
  {
    match_id: Type.Integer(),
    start_time_utc: Type.String({ format: 'date-time', description: 'kick-off, ISO 8601 UTC' }),
    home_team_name: Type.String(),
    away_team_name: Type.String(),
    region_id: NullableInteger('region (country/competition area) id'),
    region_name: NullableString('region label'),
    tournament_name: NullableString('competition'),
    season: NullableString('season label, e.g. `2023-2024`'),
    status: Type.Union([Type.Literal('scheduled'), Type.Literal('finished')], {
      description: '`finished` when the final score is known; outcome fields are filled only then',
    }),
    is_future: Type.Boolean({ description: 'true if the match has not started' }),
    proba_home: Proba('home win'),
    proba_draw: Proba('draw'),
    proba_away: Proba('away win'),
    predicted_class: PredictedClass,
    predicted_label: PredictedLabel,
    odd_home: NullableNumber(
      'decimal bookmaker odd for a home win (closing when known, else opening); null when unknown',
    ),
    odd_draw: NullableNumber('decimal bookmaker odd for a draw; null when unknown'),
    odd_away: NullableNumber('decimal bookmaker odd for an away win; null when unknown'),
    home_score: NullableInteger('final home goals; null unless finished'),
    away_score: NullableInteger('final away goals; null unless finished'),
    outcome: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2), Type.Null()], {
      description: 'actual outcome (0 home win, 1 draw, 2 away win); null unless finished',
    }),
    outcome_label: NullableString('`home_win`, `draw` or `away_win`; null unless finished'),
    prediction_correct: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'predicted_class equals outcome; null unless finished',
    }),
    bookmaker_url: Type.String({
      description:
        'link built from BOOKMAKER_URL_TEMPLATE ({match_id}, {home}, {away} substituted, URL-encoded)',
    }),
    model_stage: ModelStage,
    model_run_id: ModelRunId,
    predictions_computed_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/** Spec §2.5 plus the opening/closing prices and the source of `raw-data/odds.parquet`. */
export const OddsRecordSchema = Type.Object(
  {
    match_id: Type.Integer(),
    odd_home: NullableNumber('pre-match decimal odd a user sees: closing when known, else opening'),
    odd_draw: NullableNumber('pre-match decimal odd for a draw'),
    odd_away: NullableNumber('pre-match decimal odd for an away win'),
    open_home: NullableNumber('opening odd, home win'),
    open_draw: NullableNumber('opening odd, draw'),
    open_away: NullableNumber('opening odd, away win'),
    close_home: NullableNumber('closing odd, home win'),
    close_draw: NullableNumber('closing odd, draw'),
    close_away: NullableNumber('closing odd, away win'),
    source: NullableString('where the odds came from, e.g. `football-data.co.uk:B365` or `synthetic`'),
  },
  { additionalProperties: false },
);

/** Spec §2.6. */
export const RegionRoiSchema = Type.Object(
  {
    region_name: NullableString('region label'),
    roi_pct: NullableNumber('flat-stake ROI in percent'),
    n_bets: Type.Integer({ description: 'number of simulated bets' }),
    hit_rate: NullableNumber('fraction of winning bets'),
    region_id: NullableInteger('internal region identifier'),
  },
  { additionalProperties: false },
);

const ErrorBody = Type.Object({ detail: Type.String(), code: Type.String() });
const SECURITY = [{ ApiKeyAuth: [] }];
const COMMON_ERRORS = {
  401: { ...ErrorBody, description: 'X-API-Key missing or wrong' },
};
const UNAVAILABLE = {
  503: {
    ...ErrorBody,
    description: 'MC_ERR_PREDICTIONS_UNAVAILABLE: the predictions file is missing or not loaded',
  },
};
const NOT_MODIFIED = { 304: { type: 'null', description: 'If-None-Match names the current content' } };
const RAW_NOTE =
  'The body is pre-serialised once per file load (identity, gzip and br by Accept-Encoding, with a strong ETag; If-None-Match → 304); the schema describes that payload.';

/** The serving views of the context, checked once at registration (AppContext types them as the base port). */
function viewsOf(v: ServingViews): Views {
  const candidate = v as Partial<Views>;
  if (typeof candidate.precomputedJson !== 'function' || typeof candidate.predictionsBody !== 'function') {
    throw new Error('precomputedRoutes: ctx.views must come from createServingViews (src/serving)');
  }
  return v as Views;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes one representation of a pre-serialised body, or 304 when the client holds the current one. */
function sendEncoded(request: FastifyRequest, reply: FastifyReply, body: EncodedBody): FastifyReply {
  const coding = negotiateEncoding(request.headers['accept-encoding']);
  reply.header('vary', 'Accept-Encoding');
  reply.header('etag', body.etags[coding]);
  // Caches may keep the body but must revalidate: a new file can land at any poll.
  reply.header('cache-control', 'no-cache');
  const inm = request.headers['if-none-match'];
  if (notModified(inm, body)) return reply.code(304).send();
  reply.header('content-type', JSON_TYPE);
  if (coding !== 'identity') return reply.header('content-encoding', coding).send(body[coding]);
  return reply.send(body.identity ?? identityStream(body));
}

/**
 * The precomputed read paths (spec §4.3–4.7): memory reads over `ctx.views`, no queue, no model and
 * no object-store call at request time (the ROI re-check aside, bounded and at most once per
 * `ROI_RECHECK_MS`).
 */
export async function precomputedRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const views = viewsOf(ctx.views);

  app.get(
    '/predict/predictions/',
    {
      schema: {
        tags: ['predict'],
        summary:
          'Every precomputed prediction (spec §2.1, camelCase display columns; future and past matches)',
        description: RAW_NOTE,
        security: SECURITY,
        response: {
          200: Type.Array(PredictionRowSchema),
          ...NOT_MODIFIED,
          ...COMMON_ERRORS,
          ...UNAVAILABLE,
        },
      },
    },
    (request, reply) => sendEncoded(request, reply, views.predictionsBody()),
  );

  app.get(
    '/predict/precomputed/:match_id',
    {
      schema: {
        tags: ['predict'],
        summary: 'One precomputed prediction (spec §2.2, snake_case)',
        description: 'A map lookup in the loaded predictions file; no task queue, no registry call.',
        security: SECURITY,
        params: Type.Object(
          {
            match_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'match id' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: PrecomputedSchema,
          ...COMMON_ERRORS,
          404: {
            ...ErrorBody,
            description: 'MC_ERR_MATCH_NOT_FOUND: the match is not in the current predictions file',
          },
          ...UNAVAILABLE,
        },
      },
    },
    (request, reply) => {
      const id = (request.params as { match_id: number }).match_id;
      const json = views.precomputedJson(id);
      if (json === undefined) {
        throw new MatchcastError(
          'MC_ERR_MATCH_NOT_FOUND',
          `Match ${id} is not in the current predictions file`,
        );
      }
      return reply.header('content-type', JSON_TYPE).send(json);
    },
  );

  app.get(
    '/predict/cards/',
    {
      schema: {
        tags: ['predict'],
        summary:
          'Match cards: predictions joined with bookmaker odds, outcome for finished matches, sorted by kick-off',
        description: RAW_NOTE,
        security: SECURITY,
        response: {
          200: Type.Array(MatchCardSchema),
          ...NOT_MODIFIED,
          ...COMMON_ERRORS,
          ...UNAVAILABLE,
        },
      },
    },
    (request, reply) => sendEncoded(request, reply, views.cardsBody()),
  );

  app.get(
    '/predict/odds/',
    {
      schema: {
        tags: ['predict'],
        summary: 'Bookmaker 1X2 odds per match (spec §2.5); [] when the odds file has not been produced',
        description: RAW_NOTE,
        security: SECURITY,
        response: { 200: Type.Array(OddsRecordSchema), ...NOT_MODIFIED, ...COMMON_ERRORS },
      },
    },
    (request, reply) => sendEncoded(request, reply, views.oddsBody()),
  );

  app.get(
    '/predict/region-roi/',
    {
      schema: {
        tags: ['predict'],
        summary: 'Flat-stake ROI per region (spec §2.6); [] when roi_by_region.csv has not been produced',
        description:
          'Cached in memory; re-checked against the object store at most every ROI_RECHECK_MS (60 s).',
        security: SECURITY,
        response: { 200: Type.Array(RegionRoiSchema), ...COMMON_ERRORS },
      },
    },
    async () => views.regionRoi(),
  );
}
