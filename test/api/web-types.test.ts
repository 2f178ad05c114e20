// The web UI and the OpenAPI description agree: web/src/lib/types.ts declares no
// API shape of its own, only type-only aliases of src/schemas, and every route that serves one of
// those shapes documents exactly that schema in /openapi.json.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  BacktestSummary,
  DriftSummary,
  Explanation,
  Health,
  LivePrediction,
  MatchCard,
  MatchMarkets,
  ModelInfo,
  PerformanceSummary,
  PromotionStatus,
  RegionRoi,
  ReportEntry,
} from '../../src/schemas/index.js';
import { embeddedApp } from '../helpers/app-context.js';

const TYPES_FILE = path.resolve(import.meta.dirname, '../../web/src/lib/types.ts');

/** Web type → the src/schemas export it aliases and where the API documents it (GET, 200). */
const SERVED: Record<string, { schema: object; path: string; array?: boolean }> = {
  Card: { schema: MatchCard, path: '/predict/cards/', array: true },
  RegionRoi: { schema: RegionRoi, path: '/predict/region-roi/', array: true },
  LivePrediction: { schema: LivePrediction, path: '/predict/{match_id}' },
  ModelInfo: { schema: ModelInfo, path: '/predict/model/info' },
  DriftSummary: { schema: DriftSummary, path: '/monitoring/drift' },
  ReportEntry: { schema: ReportEntry, path: '/monitoring/reports', array: true },
  MatchMarkets: { schema: MatchMarkets, path: '/predict/markets/{match_id}' },
  PerformanceSummary: { schema: PerformanceSummary, path: '/monitoring/performance' },
  PromotionStatus: { schema: PromotionStatus, path: '/monitoring/promotion' },
  BacktestSummary: { schema: BacktestSummary, path: '/monitoring/backtest' },
  Explanation: { schema: Explanation, path: '/predict/explain/{match_id}' },
  Health: { schema: Health, path: '/healthcheck/' },
};

let app: FastifyInstance;
let doc: {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};

before(async () => {
  ({ app } = await embeddedApp());
  doc = (await app.inject('/openapi.json')).json();
});
after(async () => {
  await app?.close();
});

test('web/src/lib/types.ts declares no API shape: only type-only aliases of src/schemas', async () => {
  const source = await readFile(TYPES_FILE, 'utf8');
  assert.doesNotMatch(source, /\binterface\s+\w+/, 'an interface duplicates a shape of src/schemas');
  assert.match(source, /^import type \{[^}]+\} from '\.\.\/\.\.\/\.\.\/src\/schemas\/index\.js';$/m);
  assert.doesNotMatch(source, /^import (?!type)/m, 'only type imports: nothing of src/ in the bundle');
  const aliases = [...source.matchAll(/^export type (\w+) = (\w+);$/gm)].map((m) => m[1]);
  for (const name of Object.keys(SERVED)) assert.ok(aliases.includes(name), `${name} is an alias`);
  // No object type literal of its own (`export type X = { … }`).
  assert.doesNotMatch(source, /^export type \w+ = \{/m);
});

test('no other web file reaches into src/: API shapes come through web/src/lib/types.ts', async () => {
  const webSrc = path.dirname(path.dirname(TYPES_FILE));
  const files = (await readdir(webSrc, { recursive: true })).filter((f) => /\.tsx?$/.test(f));
  for (const f of files) {
    const full = path.join(webSrc, f);
    if (full === TYPES_FILE) continue;
    assert.doesNotMatch(await readFile(full, 'utf8'), /from '(\.\.\/)+src\//, `${f} imports src/ directly`);
  }
});

/**
 * @fastify/swagger writes `const: x` as `enum: [x]` (the same JSON Schema) and `patternProperties:
 * {pattern: T}` as `additionalProperties: T` (OpenAPI output drops the key pattern; the route still
 * validates it).
 */
function normalise(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(normalise);
  if (!s || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'const') out.enum = [v];
    else if (k === 'patternProperties')
      out.additionalProperties = normalise(Object.values(v as Record<string, unknown>)[0]);
    else out[k] = normalise(v);
  }
  return out;
}

test('each web shape is the schema its route documents in /openapi.json', () => {
  const strip = (s: unknown): unknown => {
    const { description: _d, examples: _e, example: _x, ...rest } = s as Record<string, unknown>;
    return normalise(rest);
  };
  for (const [name, served] of Object.entries(SERVED)) {
    const op = doc.paths[served.path]?.get;
    assert.ok(op, `${served.path} documented`);
    const documented = strip(Object.values(op.responses['200']?.content ?? {})[0]?.schema) as Record<
      string,
      unknown
    >;
    const declared = JSON.parse(JSON.stringify(served.schema)) as unknown;
    const actual = served.array ? documented.items : documented;
    assert.deepEqual(strip(actual), strip(declared), `${name} vs ${served.path}`);
  }
});
