import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { MatchcastError } from '../../domain/index.js';
import { readArtifact } from '../../runs/index.js';
import type { RoiBaseline } from '../../schemas/index.js';
import type { AppContext } from '../context.js';
import { hasValidKey } from '../plugins/auth.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function num(v: string | undefined): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** Rows of `reports/roi_baselines.csv` for the baselines only: the model's come from `/predict/region-roi/`. */
export function parseBaselinesCsv(text: string): RoiBaseline[] {
  const records: Record<string, string>[] = parseCsv(text, {
    columns: true,
    skip_empty_lines: true,
    trim: true,
  });
  return records
    .filter((r) => r.strategy && r.strategy !== 'model' && r.region_name !== 'ALL')
    .map((r) => ({
      strategy: r.strategy!,
      region_name: r.region_name || null,
      region_id: num(r.region_id),
      roi_pct: num(r.roi_pct),
      n_bets: num(r.n_bets) ?? 0,
      hit_rate: num(r.hit_rate),
    }));
}

/** The browser UI under `/ui/` and the JSON documents it reads, hidden from the OpenAPI description. */
export async function uiRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  // The UI bundled by `npm run build`; without its index.html, `/ui/` is 503.
  options: { distDir?: string } = {},
): Promise<void> {
  const distDir = path.resolve(options.distDir ?? path.join(REPO_ROOT, 'web', 'dist'));
  const indexFile = path.join(distDir, 'index.html');
  // Checked until found, so a UI built while the server runs is served without a restart.
  let built = existsSync(indexFile);
  // Said here: @fastify/static's own warning goes to Fastify's logger, which the app does not give it.
  if (!built) ctx.log.warn({ dist: distDir }, 'web UI not built: /ui/ answers 503 until `npm run build`');

  // The page loads `assets/…` relative to itself, so /ui redirects to /ui/: a route of its own (no global
  // hook), or with ignoreTrailingSlash the /ui/ route below.
  const bare = (url: string) => url === '/ui' || url.startsWith('/ui?');
  const toSlash = (url: string, reply: FastifyReply) => reply.redirect(`/ui/${url.slice(3)}`, 301);
  const router = app.initialConfig as { routerOptions?: { ignoreTrailingSlash?: boolean } };
  if (!router.routerOptions?.ignoreTrailingSlash)
    app.get('/ui', { schema: { hide: true } }, (request, reply) => toSlash(request.url, reply));

  await app.register(async (ui) => {
    ui.addHook('onRequest', async (request, reply) => {
      if (request.url.startsWith('/ui/config.json') || request.url.startsWith('/ui/data/')) return;
      built ||= existsSync(indexFile);
      if (!built) {
        const detail = `The web UI is not built: run \`npm run build\` (expected ${distDir}).`;
        reply.header('cache-control', 'no-store');
        throw new MatchcastError('MC_ERR_UI_UNAVAILABLE', detail);
      }
    });

    await ui.register(fastifyStatic, {
      root: distDir,
      prefix: '/ui/',
      index: ['index.html'],
      wildcard: true,
      schemaHide: true,
      cacheControl: false,
      setHeaders: (res: FastifyReply, filePath: string) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });

    // Explicit, because with the router's ignoreTrailingSlash the wildcard route never sees `/ui/`.
    ui.get('/ui/', { schema: { hide: true } }, (request, reply) => {
      if (bare(request.url)) return toSlash(request.url, reply);
      reply.header('cache-control', 'no-cache');
      return reply.sendFile('index.html');
    });

    ui.get('/ui/config.json', { schema: { hide: true } }, async (_req, reply: FastifyReply) => {
      reply.header('cache-control', 'no-cache');
      return { edge_threshold: ctx.config.edgeThreshold, edge_threshold_source: 'server' };
    });

    ui.get(
      '/ui/data/roi-baselines.json',
      { schema: { hide: true } },
      async (request, reply: FastifyReply) => {
        // The model's ROI lives behind the key (/predict/region-roi/); its baselines do too.
        if (!hasValidKey(request, ctx.config.apiKey)) throw new MatchcastError('MC_ERR_UNAUTHORIZED');
        reply.header('cache-control', 'no-cache');
        const obj = await readArtifact(ctx, 'roiBaselines'); // the published run's
        if (!obj)
          throw new MatchcastError(
            'MC_ERR_NOT_FOUND',
            'No baseline ROI report yet (reports/roi_baselines.csv).',
          );
        return parseBaselinesCsv(obj.body.toString('utf8'));
      },
    );
  });
}
