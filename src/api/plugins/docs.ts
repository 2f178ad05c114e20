import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** OpenAPI 3 description at `/openapi.json` (and `/docs/json`), interactive docs at `/docs`. */
export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      // 3.1: schemas are JSON Schema 2020-12, so the spec's nullable fields are `anyOf [T, null]`.
      openapi: '3.1.0',
      info: {
        title: 'matchcast',
        description: 'Football match-outcome probabilities (home win, draw, away win) with model lineage.',
        version,
      },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      tags: [
        { name: 'predict', description: 'Predictions (X-API-Key required)' },
        { name: 'livescores', description: 'Matches from the database' },
        { name: 'monitoring', description: 'Queue, worker, task and drift monitoring' },
        { name: 'service', description: 'Liveness, metrics, landing' },
      ],
    },
  });
  // The app-wide helmet CSP covers /docs too: swagger-ui's own staticCSP omits 'unsafe-inline' for
  // styles, which the UI applies inline (a CSP violation in the browser). No external validator badge.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: false, uiConfig: { validatorUrl: null } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
