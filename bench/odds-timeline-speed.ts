// Cost of point-in-time odds in the features stage, on the real data without a database: the CSVs are
// parsed, the matches given ids, their prices stamped as ingest stamps them; then (CPU ms, best of 3)
// building OddsTimeline, buildFeatureRows with the records only (before) and with the observations
// (after), and the observations file's write and read.
// Usage: node --import tsx bench/odds-timeline-speed.ts [data-folder]
import type { Match, OddsObservation } from '../src/domain/index.js';
import { OddsTimeline } from '../src/domain/index.js';
import { buildFeatureRows } from '../src/features/index.js';
import { parseCsvFile } from '../src/ingest/csv-file.js';
import { listCsvFiles } from '../src/ingest/index.js';
import { stampPrices } from '../src/ingest/ingest-path.js';
import { OBSERVATION_COLUMNS } from '../src/ingest/observation-columns.js';
import { decodeObservations } from '../src/ingest/observations-file.js';
import { summariseOdds } from '../src/ingest/odds-file.js';
import { writeParquet } from '../src/storage/index.js';

const source = process.argv[2] ?? '/work/shared/data/football';
const matches: Match[] = [];
const obs: OddsObservation[] = [];
const regions = new Map<string, number>();
const now = new Date();
for (const f of await listCsvFiles(source)) {
  for (const p of (await parseCsvFile(f)).matches) {
    const id = matches.length + 1;
    let regionId = regions.get(p.match.regionName);
    if (regionId === undefined) {
      regionId = regions.size + 1;
      regions.set(p.match.regionName, regionId);
    }
    matches.push({ ...p.match, id, regionId });
    for (const s of p.prices) obs.push(stampPrices(id, p.match.startTimeUtc, s, p.source, now));
  }
}
const cpu = (fn: () => unknown): number => {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const c = process.cpuUsage();
    fn();
    const d = process.cpuUsage(c);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return Math.round(best);
};
let timeline = OddsTimeline.from(obs);
const records = new Map(
  matches.map((m) => [m.id, summariseOdds(m.id, timeline)]).filter((e) => e[1] !== null) as [
    number,
    NonNullable<ReturnType<typeof summariseOdds>>,
  ][],
);
const asOf = new Date('2023-07-01T00:00:00Z');
console.log(`${matches.length} matches, ${obs.length} observations`);
console.log(`OddsTimeline.from: ${cpu(() => (timeline = OddsTimeline.from(obs)))} ms CPU`);
console.log(
  `buildFeatureRows, records only (before): ${cpu(() => buildFeatureRows(matches, records, asOf))} ms CPU`,
);
console.log(
  `buildFeatureRows, observations (after): ${cpu(() => buildFeatureRows(matches, records, asOf, { observations: timeline }))} ms CPU`,
);
const rows = obs.map((o) => ({
  match_id: o.match_id,
  market: o.market,
  kind: o.kind,
  observed_at: o.observed_at,
  source: o.source,
  price_1: o.prices[0],
  price_2: o.prices[1],
  price_3: o.prices[2] ?? null,
}));
let buf: Buffer = Buffer.alloc(0);
console.log(
  `write odds_observations.parquet: ${cpu(() => (buf = writeParquet(OBSERVATION_COLUMNS, rows)))} ms CPU, ${buf.length} bytes`,
);
const c = process.cpuUsage();
await decodeObservations(buf);
const d = process.cpuUsage(c);
console.log(`read + decode: ${Math.round((d.user + d.system) / 1000)} ms CPU`);
