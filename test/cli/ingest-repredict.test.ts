import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestCommand } from '../../src/cli/ingest.js';
import { MatchesRepository, PendingRepredictions } from '../../src/db/index.js';
import { bootstrapFirstRun } from '../../src/pipeline/index.js';
import type { PredictionRow } from '../../src/pipeline/predictions-file.js';
import { decodePredictionRows } from '../../src/pipeline/repredict.js';
import { readArtifact, readPublished, readRunRecord } from '../../src/runs/index.js';
import { openTestEnv, smallLeague, type TestEnv } from '../pipeline/fixtures.js';

const AS_OF = new Date('2023-09-15T00:00:00Z');

async function served(env: TestEnv): Promise<PredictionRow[]> {
  const obj = await readArtifact(env.deps, 'predictions');
  assert.ok(obj);
  return decodePredictionRows(obj.body);
}

/** `matchcast ingest <argv>` against `env`'s database, store and registry (as the server's job lane runs it). */
async function ingest(env: TestEnv, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await ingestCommand(argv, {
    config: env.config,
    deps: { db: env.deps.db, store: env.deps.store, registry: env.deps.registry },
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

// Incremental re-prediction: a new observation refreshes that match's prediction — through the ordinary
// `matchcast ingest` too (from another shell beside `start`, a cron, the distributed stack), not only
// in a replay: the changed matches are re-predicted incrementally and published.
describe('ingest re-predicts the matches it changed', () => {
  let env: TestEnv;
  before(async () => {
    env = await openTestEnv(smallLeague());
    await bootstrapFirstRun(env.deps, AS_OF, {
      backtestFrom: new Date('2022-08-01Z'),
      refitDays: 90,
      analytics: {},
    });
  });
  after(async () => {
    await env?.close();
  });

  test('an odds-only file for a fixture: its served row uses the new observation, published at once', async () => {
    const matches = await new MatchesRepository(env.deps.db).allMatches();
    const fixture = matches.find((m) => m.startTimeUtc.getTime() > AS_OF.getTime() + 20 * 86_400_000)!;
    const now = new Date(fixture.startTimeUtc.getTime() - 6 * 3_600_000);
    const seen = new Date(now.getTime() - 3_600_000);
    const beforeRow = (await served(env)).find((r) => r.match_id === fixture.id)!;
    const parent = await readPublished(env.deps.db);
    assert.ok(parent);

    const file = path.join(env.dir, 'odds-1.csv');
    await writeFile(
      file,
      `match_id,observed_at,kind,odd_home,odd_draw,odd_away,source\n${fixture.id},${seen.toISOString()},intermediate,1.3,5.5,10,feed\n`,
    );
    const first = await ingest(env, '--source', file, '--now', now.toISOString());
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^predictions: 1 re-predicted, 0 updated as of .*; run \S+ published/m);

    const published = await readPublished(env.deps.db);
    assert.ok(published && published.run_id !== parent.run_id, 'a new run serves');
    assert.equal((await readRunRecord(env.deps.db, published.run_id))?.kind, 'incremental');
    const row = (await served(env)).find((r) => r.match_id === fixture.id)!;
    assert.equal(row.odds_observed_at?.getTime(), seen.getTime(), 'the new observation is used');
    assert.ok(
      row.proba_home > beforeRow.proba_home + 0.05,
      'a short home price moves the home probability up',
    );

    // The same file again changes nothing: nothing is re-predicted, nothing published.
    const again = await ingest(env, '--source', file, '--now', now.toISOString());
    assert.equal(again.code, 0, again.err);
    assert.doesNotMatch(again.out, /^predictions:/m);
    assert.equal((await readPublished(env.deps.db))?.run_id, published.run_id);

    // --no-repredict leaves the served predictions alone.
    const later = new Date(now.getTime() - 1_800_000);
    const file2 = path.join(env.dir, 'odds-2.csv');
    await writeFile(
      file2,
      `match_id,observed_at,kind,odd_home,odd_draw,odd_away,source\n${fixture.id},${later.toISOString()},intermediate,9,5,1.35,feed\n`,
    );
    const off = await ingest(env, '--source', file2, '--now', now.toISOString(), '--no-repredict');
    assert.equal(off.code, 0, off.err);
    assert.doesNotMatch(off.out, /^predictions:/m);
    assert.equal((await readPublished(env.deps.db))?.run_id, published.run_id);
    assert.equal(
      (await served(env)).find((r) => r.match_id === fixture.id)?.odds_observed_at?.getTime(),
      seen.getTime(),
    );

    // The data moved without a re-prediction (as when an ingest is killed before it publishes): the
    // next ingest, even of nothing new, finishes it — the match waits in pending_repredictions.
    const caughtUp = await ingest(env, '--source', file, '--now', now.toISOString());
    assert.equal(caughtUp.code, 0, caughtUp.err);
    assert.match(caughtUp.out, /^predictions: 1 re-predicted/m);
    assert.equal(
      (await served(env)).find((r) => r.match_id === fixture.id)?.odds_observed_at?.getTime(),
      later.getTime(),
      'the observation the killed ingest stored is served now',
    );
    assert.deepEqual(await new PendingRepredictions(env.deps.db).ids(), [], 'nothing waits any more');
  });
});
