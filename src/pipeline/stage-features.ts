import { MatchesRepository } from '../db/index.js';
import { KEYS } from '../domain/index.js';
import { buildFeatureRows, featureFingerprint, featureRowsToParquet } from '../features/index.js';
import { putArtifact } from './artifacts.js';
import { type PipelineDeps, progressOf } from './deps.js';
import { readOddsMap, readOddsTimeline } from './odds.js';

/** `pipeline features`: one point-in-time feature row per match in the DB, written in one atomic put. */
export async function runFeaturesStage(
  deps: Pick<PipelineDeps, 'db' | 'store' | 'log' | 'progress' | 'run'>,
  asOf: Date,
) {
  const load = progressOf(deps).step('features', 'load', 2);
  const matches = await new MatchesRepository(deps.db).allMatches();
  load.tick();
  // The odds come from ingest's input file (the real store), and the run keeps a snapshot of exactly
  // those bytes as its `odds` artifact: what is served matches what the features were built from.
  const input = deps.run?.base ?? deps.store;
  const oddsObj = deps.run ? await input.get(KEYS.odds.bucket, KEYS.odds.key) : null;
  const odds = await readOddsMap(input);
  // Every observation with its time: the market columns use the latest made before each prediction time.
  const observations = await readOddsTimeline({ db: deps.db, store: input }, odds, matches);
  if (deps.run) {
    if (oddsObj) await deps.run.put('odds', oddsObj.body, { contentType: oddsObj.contentType });
    else deps.run.drop('odds');
    deps.run.setFeaturesFingerprint(featureFingerprint());
  }
  load.done({ matches: matches.length, odds: odds.size, observations: observations.size });

  const build = progressOf(deps).step('features', 'build', matches.length);
  const rows = buildFeatureRows(matches, odds, asOf, { observations });
  build.done({ rows: rows.length });

  const write = progressOf(deps).step('features', 'write', 1);
  const body = featureRowsToParquet(rows);
  const key = await putArtifact(deps.store, 'features', body);
  const labelled = rows.filter((r) => r.label !== null).length;
  const future = rows.filter((r) => r.is_future).length;
  write.done({ key, bytes: body.length, labelled, future });
  return { rows: rows.length, labelled, future, key, featureRows: rows, matches };
}
