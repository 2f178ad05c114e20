import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  buildFeatureRows,
  FEATURE_NAMES,
  MODEL_FEATURE_NAMES,
  toModelInput,
} from '../../src/features/index.js';
import {
  deserializeModel,
  predictProba,
  serializeModel,
  walkForwardBacktest,
} from '../../src/model/index.js';
import { trainModel } from '../../src/model/model.js';
import { syntheticLeague } from '../features/league-fixture.js';

// Golden hashes of feature values and model probabilities on a fixed synthetic league. Refactors of
// feature groups or model families must leave every bit unchanged; a deliberate change of a feature
// or a fit updates the hash here in the same commit, with the reason in the message.
const { matches, odds } = syntheticLeague({ seed: 5, regions: 2, seasons: 4, teams: 8 });
const AS_OF = matches[Math.floor(matches.length * 0.8)].startTimeUtc;

function hashOf(values: Iterable<number | null | string>): string {
  const h = createHash('sha256');
  const buf = Buffer.alloc(8);
  for (const v of values) {
    if (typeof v === 'number') {
      buf.writeDoubleLE(v);
      h.update(buf);
    } else h.update(`|${String(v)}|`);
  }
  return h.digest('hex').slice(0, 16);
}

function* featureValues() {
  for (const r of buildFeatureRows(matches, odds, AS_OF)) {
    yield r.match_id;
    yield r.label;
    for (const n of FEATURE_NAMES) yield r[n];
  }
}

test('feature rows are bit-identical to the golden hash', () => {
  assert.equal(hashOf(featureValues()), '266b4e63e0d24924');
});

test('model probabilities of each family are bit-identical to the golden hash', () => {
  const rows = buildFeatureRows(matches, odds, AS_OF);
  const names = [...MODEL_FEATURE_NAMES];
  const train = rows.filter((r) => r.label !== null);
  const X = train.map((r) => toModelInput(r, names));
  const y = train.map((r) => r.label as number);
  const got: Record<string, string> = {};
  for (const [tag, params] of [
    ['multinomial', { family: 'multinomial_logit' }],
    ['multinomial_offset', { family: 'multinomial_logit', marketOffset: true, l2: 0.05 }],
    ['ordered', { family: 'ordered_logit' }],
  ] as const) {
    const m = trainModel(X, y, { ...params, featureNames: names });
    // The serialised artifact (byte-identical: stored models keep loading) must parse back to the same predictions.
    const json = serializeModel(m);
    got[`${tag}_artifact`] = createHash('sha256').update(json).digest('hex').slice(0, 16);
    const back = deserializeModel(json);
    got[tag] = hashOf(rows.flatMap((r) => predictProba(back, toModelInput(r, names))));
  }
  const wf = walkForwardBacktest(rows, {
    from: matches[Math.floor(matches.length * 0.5)].startTimeUtc,
    refitDays: 60,
  });
  got.walk_forward = hashOf(
    wf.predictions.flatMap((p) => [p.match_id, p.proba_home, p.proba_draw, p.proba_away]),
  );
  assert.deepEqual(got, {
    multinomial: '754b53e1526c79d2',
    multinomial_artifact: 'b3364ea41c8ebaee',
    multinomial_offset: '23379c886dfb5a0a',
    multinomial_offset_artifact: '24ec3a5dd85ec77d',
    ordered: '1e508d3dce7f46b0',
    ordered_artifact: '5e3802d9476e97f0',
    walk_forward: '6fbc686094a94ce5',
  });
});
