// A small deterministic league for pipeline tests: team strengths, Poisson goals, bookmaker odds
// with a margin. Small on purpose (the real-data run is measured in bench/pipeline-run.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipelineCommand } from '../../src/cli/pipeline.js';
import { type Config, parseConfig } from '../../src/config.js';
import { type Database, MatchesRepository, type MatchUpsert, openDatabase } from '../../src/db/index.js';
import { KEYS } from '../../src/domain/index.js';
import { createLogger } from '../../src/logger.js';
import type { PipelineDeps } from '../../src/pipeline/index.js';
import { silentProgress } from '../../src/pipeline/progress.js';
import { createRegistry } from '../../src/registry/index.js';
import { openDraftRun } from '../../src/runs/index.js';
import { createObjectStore, type ObjectStore, writeParquet } from '../../src/storage/index.js';

const DAY = 86_400_000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poisson(lambda: number, r: () => number): number {
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= r();
  } while (p > l);
  return k - 1;
}

export interface LeagueMatch {
  match: MatchUpsert;
  odds: [number, number, number];
}

/**
 * Two regions × `teams` teams, double round robin per season, one round a week from 1 Aug 2021.
 * Every match has a result in the data (the pipeline's as-of decides which ones count).
 */
export function smallLeague(
  options: { seasons?: number; teams?: number; seed?: number } = {},
): LeagueMatch[] {
  const seasons = options.seasons ?? 3;
  const n = options.teams ?? 8;
  const r = rng(options.seed ?? 7);
  const out: LeagueMatch[] = [];
  for (const region of ['Northland', 'Southland']) {
    const strength = Array.from({ length: n }, () => (r() - 0.5) * 1.2);
    for (let s = 0; s < seasons; s++) {
      const season = `${2021 + s}-${2022 + s}`;
      const start = Date.UTC(2021 + s, 7, 1, 15);
      // Circle method: n-1 rounds, then the return legs.
      const teams = Array.from({ length: n }, (_, i) => i);
      const rounds: Array<Array<[number, number]>> = [];
      for (let k = 0; k < n - 1; k++) {
        const pairs: Array<[number, number]> = [];
        for (let i = 0; i < n / 2; i++) pairs.push([teams[i], teams[n - 1 - i]]);
        rounds.push(pairs);
        teams.splice(1, 0, teams.pop()!);
      }
      const all = [...rounds, ...rounds.map((p) => p.map(([a, b]) => [b, a] as [number, number]))];
      all.forEach((pairs, k) => {
        for (const [h, a] of pairs) {
          const lh = Math.exp(0.25 + strength[h] - strength[a]);
          const la = Math.exp(strength[a] - strength[h]);
          const hs = poisson(lh, r);
          const as = poisson(la, r);
          // Rough true probabilities → odds with a 6 % margin and some noise.
          const ph = 1 / (1 + Math.exp(-(0.35 + 1.6 * (strength[h] - strength[a]))));
          const pd = 0.26;
          const pH = ph * (1 - pd);
          const pA = (1 - ph) * (1 - pd);
          const noise = () => 1 + (r() - 0.5) * 0.06;
          out.push({
            match: {
              regionName: region,
              tournamentName: `${region} League`,
              season,
              startTimeUtc: new Date(start + k * 7 * DAY + (h % 2) * 3_600_000),
              homeTeamName: `${region} ${String.fromCharCode(65 + h)}`,
              awayTeamName: `${region} ${String.fromCharCode(65 + a)}`,
              status: 'finished',
              homeScore: hs,
              awayScore: as,
            },
            odds: [(1 / (pH * 1.06)) * noise(), (1 / (pd * 1.06)) * noise(), (1 / (pA * 1.06)) * noise()],
          });
        }
      });
    }
  }
  return out;
}

export interface TestEnv {
  deps: PipelineDeps;
  dir: string;
  config: Config;
  ids: number[];
  close(): Promise<void>;
}

/** PGlite in memory, a folder store in a temp dir, the league loaded (matches + odds.parquet). */
export async function openTestEnv(
  league: LeagueMatch[],
  overrides: Record<string, string> = {},
  wrapStore?: (s: ObjectStore) => ObjectStore,
): Promise<TestEnv> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mc-pipeline-'));
  const config = parseConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', ...overrides });
  const db: Database = await openDatabase(config, { memory: true });
  const inner = createObjectStore(config);
  const store = wrapStore ? wrapStore(inner) : inner;
  const { ids } = await new MatchesRepository(db).upsertMatches(league.map((l) => l.match));
  const odds = league.map((l, i) => ({
    match_id: ids[i],
    odd_home: l.odds[0],
    odd_draw: l.odds[1],
    odd_away: l.odds[2],
    open_home: l.odds[0],
    open_draw: l.odds[1],
    open_away: l.odds[2],
    close_home: l.odds[0],
    close_draw: l.odds[1],
    close_away: l.odds[2],
    source: 'test',
  }));
  await inner.put(
    KEYS.odds.bucket,
    KEYS.odds.key,
    writeParquet(
      [
        { name: 'match_id', type: 'int64' },
        ...['odd', 'open', 'close'].flatMap((p) =>
          ['home', 'draw', 'away'].map((s) => ({ name: `${p}_${s}`, type: 'double' as const })),
        ),
        { name: 'source', type: 'string' },
      ],
      odds,
    ),
  );
  const log = createLogger('silent');
  return {
    deps: {
      config,
      db,
      store,
      registry: createRegistry({ db, store }, config),
      log,
      progress: silentProgress,
    },
    dir,
    config,
    ids,
    async close() {
      await db.close();
      await inner.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `env.deps` writing into a draft run, as the stand-alone `matchcast pipeline <stage>` commands do:
 * later stages read what earlier ones wrote (nothing is served until the draft is published).
 */
export async function draftDeps(env: TestEnv, asOf: Date): Promise<PipelineDeps> {
  const draft = await openDraftRun(env.deps, { asOf });
  return { ...env.deps, store: draft.store, run: draft };
}

/** `matchcast pipeline <argv>` against `env`, with its exit code and what it printed. */
export async function runPipelineCli(
  env: TestEnv,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await pipelineCommand(argv, {
    config: env.config,
    deps: env.deps,
    analytics: {},
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}
