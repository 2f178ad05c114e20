import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { MatchcastError } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { keysMatch } from '../plugins/auth.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Options of {@link uiRoutes}; the defaults fit the repository layout. */
export interface UiRoutesOptions {
  /** Folder holding the built UI (`index.html`, `assets/`). Default `<repo>/web/dist`. */
  distDir?: string;
  /**
   * Build the UI with `scripts/build-web.mjs` (needs esbuild) at the first request when `distDir` has no
   * `index.html`. Default `true`; when false, or when the build fails, `/ui/` answers 503.
   */
  buildOnDemand?: boolean;
}

/** One baseline row of `/ui/data/roi-baselines.json`. */
export interface RoiBaselineRow {
  strategy: string;
  region_name: string | null;
  region_id: number | null;
  roi_pct: number | null;
  n_bets: number;
  hit_rate: number | null;
}

const BASELINES_KEY = 'roi_baselines.csv';

function num(v: string | undefined): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Rows of `reports/roi_baselines.csv` (strategy, region_name, roi_pct, n_bets, hit_rate, profit,
 * region_id) for the baseline strategies only: the model's own rows come from `/predict/region-roi/`,
 * and the `ALL` total row has no region.
 */
export function parseBaselinesCsv(text: string): RoiBaselineRow[] {
  const records = parseCsv(text, { columns: true, skip_empty_lines: true, trim: true }) as Record<
    string,
    string
  >[];
  const out: RoiBaselineRow[] = [];
  for (const r of records) {
    if (!r.strategy || r.strategy === 'model' || r.region_name === 'ALL') continue;
    out.push({
      strategy: r.strategy,
      region_name: r.region_name || null,
      region_id: num(r.region_id),
      roi_pct: num(r.roi_pct),
      n_bets: num(r.n_bets) ?? 0,
      hit_rate: num(r.hit_rate),
    });
  }
  return out;
}

type BuildState =
  | { state: 'idle' }
  | { state: 'building'; done: Promise<void> }
  | { state: 'ready' }
  | { state: 'failed'; reason: string };

/**
 * Serves the browser UI under `/ui/` (index.html without caching, hashed assets cached for a year),
 * plus two small JSON documents the page reads: `/ui/config.json` (the edge threshold) and
 * `/ui/data/roi-baselines.json` (baseline ROI per region; needs the API key like `/predict/*`).
 * Every route is hidden from the OpenAPI description.
 */
export async function uiRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  options: UiRoutesOptions = {},
): Promise<void> {
  const distDir = path.resolve(options.distDir ?? path.join(REPO_ROOT, 'web', 'dist'));
  const buildOnDemand = options.buildOnDemand ?? true;
  let build: BuildState = existsSync(path.join(distDir, 'index.html'))
    ? { state: 'ready' }
    : { state: 'idle' };

  async function ensureBuilt(): Promise<void> {
    if (build.state === 'ready') return;
    if (build.state === 'building') return build.done;
    if (build.state === 'failed') throw new MatchcastError('MC_ERR_INTERNAL', build.reason);
    if (!buildOnDemand) {
      build = {
        state: 'failed',
        reason: `The web UI is not built: run \`npm run build:web\` (expected ${distDir}).`,
      };
      return ensureBuilt();
    }
    const done = (async () => {
      try {
        const script = pathToFileURL(path.join(REPO_ROOT, 'scripts', 'build-web.mjs')).href;
        const mod = (await import(script)) as { buildWeb: (o: { outDir: string }) => Promise<unknown> };
        const started = Date.now();
        await mod.buildWeb({ outDir: distDir });
        ctx.log.info({ distDir, ms: Date.now() - started }, 'web UI built on first request');
        build = { state: 'ready' };
      } catch (err) {
        ctx.log.error({ err }, 'web UI build failed');
        build = {
          state: 'failed',
          reason: 'The web UI is not built and could not be built here: run `npm run build:web`.',
        };
      }
    })();
    build = { state: 'building', done };
    return done.then(() => ensureBuilt());
  }

  // The page loads `assets/…` relative to itself, so it must be addressed as /ui/, never /ui.
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    // Cheap test first: this hook sees every request of the app.
    if (url.charCodeAt(1) === 117 && (url === '/ui' || url.startsWith('/ui?'))) {
      reply.redirect(`/ui/${url.slice(3)}`, 301);
      return;
    }
    done();
  });

  await app.register(async (ui) => {
    ui.addHook('onRequest', async (request, reply) => {
      if (request.url.startsWith('/ui/config.json') || request.url.startsWith('/ui/data/')) return;
      try {
        await ensureBuilt();
      } catch (err) {
        const detail = err instanceof MatchcastError ? String(err.detail) : 'The web UI is unavailable.';
        return reply.code(503).header('cache-control', 'no-store').send({ detail });
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
    ui.get('/ui/', { schema: { hide: true } }, (_req, reply) => {
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
        const header = request.headers['x-api-key'];
        const supplied = typeof header === 'string' ? header : undefined;
        if (!ctx.config.apiKey || supplied === undefined || !keysMatch(supplied, ctx.config.apiKey)) {
          throw new MatchcastError('MC_ERR_UNAUTHORIZED');
        }
        reply.header('cache-control', 'no-cache');
        const obj = await ctx.store.get('reports', BASELINES_KEY);
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
