/**
 * Incremental re-prediction on the real data: the service is bootstrapped as of
 * 2022-09-01 through the replay feed (later matches are fixtures with only the odds observed by then),
 * then the clock moves on in 12-hour steps; each step's new odds are ingested (timed apart) and the
 * touched matches are re-predicted and published as an incremental run (timed: target < 1 s for a
 * matchday of about 10 matches). Wall and CPU time, since the machine is shared.
 *
 *   node --import tsx bench/repredict.ts [data-folder] [--steps N] [--state DIR] [--code DIR]
 *
 * --state DIR  keeps the bootstrapped store in DIR (built on the first use, copied for every later
 *              one), so that rounds skip the 1–2 minute ingest and first run.
 * --code DIR   runs the re-prediction of another checkout (e.g. the previous commit, extracted with
 *              `git archive`, node_modules linked) on the same state: paired rounds old/new.
 * The last line is a digest of the served predictions after the last step: two checkouts that
 * compute the same rows print the same digest.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const steps = Number(opt('--steps') ?? 8);
const stateDir = opt('--state');
const code = path.resolve(opt('--code') ?? path.join(import.meta.dirname, '..'));
const source =
  args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? '/work/shared/data/football';
const asOf = new Date('2022-09-01T00:00:00Z');

const load = (rel: string) => import(pathToFileURL(path.join(code, rel)).href);
const { parseConfig } = await load('src/config.ts');
const { ingestPath, listCsvFiles } = await load('src/ingest/index.ts');
const { createLogger } = await load('src/logger.ts');
const { bootstrapFirstRun, decodePredictionRows, openPipelineDeps, repredictMatches, silentProgress } =
  await load('src/pipeline/index.ts');
const { readArtifact } = await load('src/runs/index.ts');
const { ReplayFeed } = await load('src/replay/index.ts');

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

const dir = await mkdtemp(path.join(tmpdir(), 'mc-bench-repredict-'));
const data = path.join(dir, 'data');
const reuse = stateDir !== undefined && (await exists(path.join(stateDir, 'READY')));
if (reuse) await cp(stateDir, data, { recursive: true });
const config = parseConfig({ DATA_DIR: data, LOG_LEVEL: 'warn' });
const log = createLogger('warn');
let deps = await openPipelineDeps(config, { log, progress: silentProgress });
const file = path.join(dir, 'feed.csv');
try {
  const feed = await ReplayFeed.load(await listCsvFiles(source));
  const first = feed.advance(asOf)!;
  if (!reuse) {
    let t = performance.now();
    const initial = path.join(dir, 'initial');
    await mkdir(initial);
    for (const [i, text] of first.files.entries()) await writeFile(path.join(initial, `${i}.csv`), text);
    await ingestPath(initial, deps, { now: asOf });
    console.log(
      `ingest as of ${asOf.toISOString()}: ${first.rows} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    t = performance.now();
    await bootstrapFirstRun(deps, asOf);
    console.log(`first run: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (stateDir) {
      await deps.close();
      await rm(stateDir, { recursive: true, force: true });
      await cp(data, stateDir, { recursive: true });
      await writeFile(path.join(stateDir, 'READY'), asOf.toISOString());
      deps = await openPipelineDeps(config, { log, progress: silentProgress });
    }
  }

  const cache = {};
  let now = asOf;
  const rows: string[] = [];
  const warm: Array<{ wall: number; cpu: number }> = [];
  for (let i = 0; i < steps; ) {
    now = new Date(now.getTime() + 12 * 3_600_000);
    const delta = feed.advance(now);
    if (!delta || delta.openings === 0) continue;
    await writeFile(file, delta.csv);
    const ti = performance.now();
    await ingestPath(file, deps, { now });
    const ingestMs = performance.now() - ti;
    const ids = await deps.db.query('SELECT id FROM matches WHERE start_time_utc = ANY($1::timestamptz[])', [
      delta.kickoffs.map((k: number) => new Date(k).toISOString()),
    ]);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await repredictMatches(
      deps,
      ids.map((x: { id: number }) => Number(x.id)),
      { asOf: now, cache },
    );
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const cpu = (c.user + c.system) / 1000;
    if (i > 0) warm.push({ wall, cpu });
    console.log(
      `${now.toISOString()} phases ms ${JSON.stringify(r.phases)} regions ${r.regions} (${r.resumed_regions} from a checkpoint)`,
    );
    rows.push(
      `| ${now.toISOString().slice(0, 16)} | ${ids.length} | ${delta.openings} | ${r.repredicted} | ${r.updated} | ${wall.toFixed(0)} | ${cpu.toFixed(0)} | ${ingestMs.toFixed(0)} | ${i === 0 ? 'cold' : 'warm'} |`,
    );
    i++;
  }
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    '| clock | matches | new openings | repredicted | results | re-predict wall ms | CPU ms | ingest ms | cache |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? Number.NaN : (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
  };
  console.log(
    `warm median: ${median(warm.map((w) => w.wall)).toFixed(0)} ms wall, ${median(warm.map((w) => w.cpu)).toFixed(0)} ms CPU (${warm.length} calls; code ${code})`,
  );
  const served = await decodePredictionRows((await readArtifact(deps.store, 'predictions')).body);
  const digest = createHash('sha256');
  for (const r of [...served].sort(
    (a: { match_id: number }, b: { match_id: number }) => a.match_id - b.match_id,
  ))
    digest.update(JSON.stringify(r));
  console.log(`served predictions digest ${digest.digest('hex').slice(0, 16)} (${served.length} rows)`);
} finally {
  await deps.close();
  await rm(dir, { recursive: true, force: true });
}
