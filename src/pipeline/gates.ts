import { KEYS, ODDS_BOUNDS, ODDS_PRICE_FIELDS, type OddsRecord } from '../domain/index.js';
import { type FeatureRow, featureRowsFromParquet, MODEL_FEATURE_NAMES } from '../features/index.js';
import { decodeOdds } from '../ingest/index.js';
import {
  type GateResult,
  type PublishedRun,
  type RunWriter,
  readRunRecord,
  runFileKey,
} from '../runs/index.js';
import { readParquet } from '../storage/index.js';
import { readJson } from './artifacts.js';
import type { BacktestRow, PredictionRow } from './predictions-file.js';

/** The input gate of `pipeline run`: an empty or wrong database is refused by name, not failed in `train`. */
export function evaluateInputGate(
  featureRows: readonly FeatureRow[],
  asOf: Date,
  champion: { version: string } | null,
): GateResult {
  const finished = featureRows.filter((r) => r.label !== null && r.start_time_utc < asOf).length;
  const at = asOf.toISOString();
  const fallback = champion
    ? `the champion (version ${champion.version}) keeps serving the published run`
    : 'there is no champion to fall back on';
  const message =
    featureRows.length === 0
      ? `no rows to train on: the database has no match (empty or wrong database? check DATABASE_URL, or ingest data first); ${fallback}`
      : finished === 0
        ? `no rows to train on: none of the ${featureRows.length} matches finished before as-of ${at} (wrong database or --as-of?); ${fallback}`
        : `${finished} finished matches before as-of ${at} to train on (${featureRows.length} feature rows)`;
  return {
    name: 'rows',
    passed: finished > 0,
    message,
    figures: {
      stage: 'input',
      features_rows: featureRows.length,
      finished_rows: finished,
      as_of: at,
      champion: champion?.version ?? null,
    },
  };
}

/** What the gates read; rows already in memory are handed over, the others are read from the run. */
interface GateInputs {
  featureRows?: FeatureRow[];
  predictionRows?: PredictionRow[] | null;
  backtestRows?: BacktestRow[] | null;
  odds?: OddsRecord[] | null;
}

interface GateOptions {
  /** Largest share of rows lost against the published run (`GATE_MAX_ROW_DROP`). Default `0.2`. */
  maxRowDrop?: number;
  /** The run's as-of: a published result kicking off at or after it counts as lost. Default the run's record. */
  asOf?: Date | null;
}

/** A column of market origin: wholly missing when the data has no odds at all, which is not a fault. */
const isMarketColumn = (name: string) => /^(mkt|mr|odds)_/.test(name);

type Row = Record<string, unknown>;

async function rowsOf(
  run: RunWriter,
  name: 'predictions' | 'backtest' | 'features',
  given: readonly object[] | null | undefined,
): Promise<Row[] | null> {
  if (given !== undefined) return given as Row[] | null;
  const obj = await run.get(name);
  if (!obj) return null;
  if (name === 'features') return (await featureRowsFromParquet(obj.body)) as unknown as Row[];
  return readParquet(obj.body);
}

/** The extra file of a run that lists its finished matches and their outcomes (for `results_kept`). */
const RESULTS_FILE = 'results.json';

interface ResultsFile {
  as_of: string | null;
  /** Finished matches: id, outcome label, kick-off (ms). */
  ids: number[];
  labels: number[];
  starts: number[];
}

const time = (v: unknown) => (v instanceof Date ? v : new Date(String(v))).getTime();
const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : null);

/**
 * The validation gates of a run: `rows` (not empty, no drop beyond `maxRowDrop`), `results_kept` (no
 * published result lost or changed, also not by a run going back in time), `probabilities` (finite, in
 * [0, 1], triples summing to 1 ±1e-6), `odds_plausible` (every price within `ODDS_BOUNDS`) and
 * `feature_columns` (no model column wholly missing; market ones only if the published run had them).
 */
export async function evaluateGates(
  run: RunWriter,
  previous: PublishedRun | null,
  inputs: GateInputs = {},
  options: GateOptions = {},
): Promise<GateResult[]> {
  const maxDrop = options.maxRowDrop ?? 0.2;
  const asOfIso = options.asOf === undefined ? run.record.as_of : (options.asOf?.toISOString() ?? null);
  const asOfMs = asOfIso ? new Date(asOfIso).getTime() : Number.POSITIVE_INFINITY;
  const prevRecord = previous ? await readRunRecord(run.db, previous.run_id) : null;
  // Features the run inherited unchanged are not re-read (cheap incremental runs): their gates carry over.
  const inherited =
    !inputs.featureRows &&
    previous?.artifacts.features?.key !== undefined &&
    run.ref('features')?.key === previous.artifacts.features.key;
  const features = inherited ? [] : ((await rowsOf(run, 'features', inputs.featureRows)) ?? []);
  const predictions = await rowsOf(run, 'predictions', inputs.predictionRows);
  const backtest = await rowsOf(run, 'backtest', inputs.backtestRows);
  const gates: GateResult[] = [];
  const gate = (name: string, problem: string | false, ok: string, figures: GateResult['figures']) =>
    gates.push({ name, passed: !problem, message: problem || ok, figures });

  const prevRows = prevRecord?.gates.find((g) => g.name === 'rows')?.figures ?? {};
  const prevFeatures = num(prevRows.features_rows);
  const prevPredictions = num(prevRows.predictions_rows);
  const problems: string[] = [];
  const nFeatures = inherited ? (prevFeatures ?? 0) : features.length;
  if (nFeatures === 0) problems.push('the features artifact has no rows (empty or wrong database?)');
  if (predictions !== null && predictions.length === 0) problems.push('the predictions artifact has no rows');
  const drop = (now: number, before: number | null) => (before && before > 0 ? (before - now) / before : 0);
  // Inherited features count as the published run's rows (they are those rows), not as none.
  if (drop(nFeatures, prevFeatures) > maxDrop) {
    problems.push(`features rows fell from ${prevFeatures} to ${nFeatures} (more than ${maxDrop * 100} %)`);
  }
  if (predictions !== null && drop(predictions.length, prevPredictions) > maxDrop) {
    problems.push(
      `predictions rows fell from ${prevPredictions} to ${predictions.length} (more than ${maxDrop * 100} %)`,
    );
  }
  gate(
    'rows',
    problems.join('; '),
    `${nFeatures} feature rows${inherited ? ' (inherited)' : ''}, ${predictions?.length ?? 'no'} prediction rows`,
    {
      features_rows: nFeatures,
      predictions_rows: predictions?.length ?? null,
      previous_run: previous?.run_id ?? null,
      previous_features_rows: prevFeatures,
      previous_predictions_rows: prevPredictions,
      max_drop: maxDrop,
    },
  );

  // results_kept: against the results summary written with the published run's features.
  let lost = 0;
  let checked = 0;
  // A run going back in time would serve finished matches after its as-of as fixtures: lost too.
  let afterAsOf = 0;
  const examples: number[] = [];
  const prevWriter = previous?.artifacts.features?.run_id;
  const prevResults =
    !inherited && prevWriter
      ? await readJson<ResultsFile>(run.base, KEYS.features.bucket, runFileKey(prevWriter, RESULTS_FILE))
      : null;
  const finished = features.filter((r) => r.label !== null && r.label !== undefined);
  if (prevResults) {
    const labelled = new Map(finished.map((r) => [Number(r.match_id), Number(r.label)]));
    for (let i = 0; i < prevResults.ids.length; i++) {
      checked++;
      const rewound = prevResults.starts[i]! >= asOfMs;
      const now = rewound ? undefined : labelled.get(prevResults.ids[i]!);
      if (now === undefined || now !== prevResults.labels[i]) {
        lost++;
        if (rewound) afterAsOf++;
        if (examples.length < 5) examples.push(prevResults.ids[i]!);
      }
    }
  }
  if (!inherited && features.length > 0 && run.wrote('features')) {
    const out: ResultsFile = {
      as_of: asOfIso,
      ids: finished.map((r) => Number(r.match_id)),
      labels: finished.map((r) => Number(r.label)),
      starts: finished.map((r) => time(r.start_time_utc)),
    };
    await run.putFile(KEYS.features.bucket, RESULTS_FILE, JSON.stringify(out), {
      contentType: 'application/json',
    });
  }
  const lostWhy = [
    afterAsOf > 0 &&
      `this run's as-of ${asOfIso} is before the kick-off of ${afterAsOf} finished match(es) of the published run (as-of ${prevResults?.as_of ?? 'unknown'}): it would serve them as fixtures without their results (run with a later --as-of, or serve an earlier run with \`matchcast runs rollback\`)`,
    lost > afterAsOf &&
      `${lost - afterAsOf} finished match(es) of the published run lost or changed their result`,
  ];
  gate(
    'results_kept',
    lost > 0 && `${lostWhy.filter(Boolean).join('; ')} (e.g. ${examples.join(', ')})`,
    inherited
      ? 'features inherited unchanged from the published run'
      : prevResults
        ? `${checked} finished matches of the published run keep their results`
        : 'no published results to compare with',
    { checked, lost, after_as_of: afterAsOf, examples: examples.join(',') || null },
  );

  let bad = 0;
  let n = 0;
  let firstBad: string | null = null;
  for (const [what, rows] of Object.entries({ predictions, backtest })) {
    for (const r of rows ?? []) {
      n++;
      const p = [r.proba_home, r.proba_draw, r.proba_away].map((x) => num(x) ?? Number.NaN);
      const ok =
        p.every((x) => Number.isFinite(x) && x >= 0 && x <= 1) && Math.abs(p[0] + p[1] + p[2] - 1) <= 1e-6;
      if (!ok) {
        bad++;
        firstBad ??= `${what} match ${String(r.match_id)}: ${p.join(', ')}`;
      }
    }
  }
  gate(
    'probabilities',
    bad > 0 && `${bad} of ${n} probability triples invalid (first: ${firstBad})`,
    `${n} probability triples in [0, 1] summing to 1`,
    { checked: n, invalid: bad },
  );

  // odds_plausible: the run's snapshot, decoded again rather than held in memory through every stage.
  const oddsObj = inputs.odds ? null : await run.get('odds');
  const odds = inputs.odds ?? (oddsObj ? await decodeOdds(oddsObj.body) : []);
  let implausible = 0;
  let values = 0;
  let firstOdd: string | null = null;
  for (const o of odds) {
    for (const k of ODDS_PRICE_FIELDS) {
      const v = o[k];
      if (v === null || v === undefined) continue;
      values++;
      if (!(Number.isFinite(v) && v >= ODDS_BOUNDS.min && v <= ODDS_BOUNDS.max)) {
        implausible++;
        firstOdd ??= `match ${o.match_id} ${k}=${v}`;
      }
    }
  }
  gate(
    'odds_plausible',
    implausible > 0 &&
      `${implausible} odds outside [${ODDS_BOUNDS.min}, ${ODDS_BOUNDS.max}] (first: ${firstOdd})`,
    `${values} odds within [${ODDS_BOUNDS.min}, ${ODDS_BOUNDS.max}]`,
    { checked: values, implausible, min: ODDS_BOUNDS.min, max: ODDS_BOUNDS.max },
  );

  // feature_columns: the previous run's present columns come from its record (no re-read).
  const prevColumns = prevRecord?.gates.find((g) => g.name === 'feature_columns')?.figures;
  const prevPresent = new Set(`${prevColumns?.present ?? ''}`.split(',').filter(Boolean));
  const present = new Set(inherited ? prevPresent : []);
  for (const r of features) {
    for (const name of MODEL_FEATURE_NAMES) {
      if (!present.has(name) && r[name] !== null && r[name] !== undefined) present.add(name);
    }
    if (present.size === MODEL_FEATURE_NAMES.length) break;
  }
  const missing = inherited
    ? []
    : MODEL_FEATURE_NAMES.filter(
        (name) =>
          !present.has(name) && features.length > 0 && (!isMarketColumn(name) || prevPresent.has(name)),
      );
  gate(
    'feature_columns',
    missing.length > 0 && `column(s) wholly missing: ${missing.join(', ')}`,
    `${present.size} of ${MODEL_FEATURE_NAMES.length} model columns have values`,
    {
      columns: MODEL_FEATURE_NAMES.length,
      with_values: present.size,
      missing: missing.join(',') || null,
      present: [...present].join(','),
    },
  );
  return gates;
}
