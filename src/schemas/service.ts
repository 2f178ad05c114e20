import { type Static, Type } from 'typebox';
import { Literals } from './common.js';

/** Spec §2.9 plus `predictions` (additive). */
export const Health = Type.Object({
  status: Type.String({
    description:
      '`healthy` when the database answers and predictions are loaded; `degraded` otherwise (the probe still answers 200)',
  }),
  version: Type.String(),
  worker_pid: Type.Integer(),
  memory_usage_mb: Type.Number(),
  database: Type.Boolean({ description: 'database connectivity' }),
  predictions: Type.Boolean({
    description: 'additive: true when a predictions file is loaded (false = nothing to serve yet)',
  }),
  clock: Type.Optional(
    Type.String({
      description:
        'additive, only during a replay (`start --as-of`): the service clock, the "now" the replay has reached (ISO 8601)',
    }),
  ),
  sources: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        last_success_at: Type.Union([Type.String(), Type.Null()], {
          description: 'ISO 8601; the creation time for a source that never succeeded',
        }),
        period_seconds: Type.Number(),
        fresh: Type.Boolean({ description: 'false once the last success is older than twice the period' }),
      }),
      {
        description:
          "additive, only in a process that polls sources (`matchcast sources`): each polled source's freshness; it does not change `status`",
      },
    ),
  ),
});
export type Health = Static<typeof Health>;

/** `GET /readyz`: readiness for an ingress, apart from the spec's liveness probe. */
export const Readiness = Type.Object({
  status: Literals(['ready', 'not_ready']),
  detail: Type.Optional(Type.String()),
  code: Type.Optional(Type.String({ description: 'MC_ERR_PREDICTIONS_UNAVAILABLE when not ready' })),
  checks: Type.Object({
    predictions: Type.Boolean({ description: 'a predictions file is loaded (required for ready)' }),
    database: Type.Boolean({
      description: 'PostgreSQL/PGlite answers (informative: only /livescores/ needs it)',
    }),
    broker: Type.Boolean({
      description: 'the task broker answers (informative: only the live path needs it)',
    }),
  }),
});
export type Readiness = Static<typeof Readiness>;

/** `GET /metrics`: Prometheus text exposition (version 0.0.4). */
export const MetricsText = Type.String({ description: 'Prometheus text exposition format' });

/** `GET /`: where to go next. */
export const Landing = Type.Object({
  name: Type.String(),
  version: Type.String(),
  docs: Type.String(),
  openapi: Type.String(),
  ui: Type.String(),
  health: Type.String(),
});
export type Landing = Static<typeof Landing>;

/** `GET /ui/config.json`: settings the UI needs from the server. */
export const UiConfig = Type.Object({
  edge_threshold: Type.Number({ description: 'minimum edge (model probability × odd − 1) to flag a bet' }),
  edge_threshold_source: Type.Optional(
    Literals(['server', 'default'], {
      description: 'where the threshold came from: the server setting, or the UI default',
    }),
  ),
});
export type UiConfig = Static<typeof UiConfig>;

export const EXAMPLE_HEALTH: Health = {
  status: 'healthy',
  version: '0.1.0',
  worker_pid: 4093,
  memory_usage_mb: 251.37,
  database: true,
  predictions: true,
};

export const EXAMPLE_READY: Readiness = {
  status: 'ready',
  checks: { predictions: true, database: true, broker: true },
};

export const EXAMPLE_NOT_READY: Readiness = {
  status: 'not_ready',
  detail: 'No predictions file is loaded yet',
  code: 'MC_ERR_PREDICTIONS_UNAVAILABLE',
  checks: { predictions: false, database: true, broker: true },
};

export const EXAMPLE_LANDING: Landing = {
  name: 'matchcast',
  version: '0.1.0',
  docs: '/docs',
  openapi: '/openapi.json',
  ui: '/ui/',
  health: '/healthcheck/',
};

export const EXAMPLE_METRICS = [
  '# HELP http_requests_total HTTP requests',
  '# TYPE http_requests_total counter',
  'http_requests_total{method="GET",path="/predict/precomputed/{match_id}",status_code="200"} 1024',
  '',
].join('\n');
