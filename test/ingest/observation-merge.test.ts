import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import type { OddsObservation } from '../../src/domain/index.js';
import { readOddsObservations } from '../../src/ingest/index.js';
import { ObservationColumns } from '../../src/ingest/observation-columns.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

/** A seeded generator, so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const identity = (o: OddsObservation) => `${o.match_id}|${o.market}|${o.source}|${o.observed_at.getTime()}`;
const samePrices = (a: OddsObservation, b: OddsObservation) =>
  a.kind === b.kind && a.prices.length === b.prices.length && a.prices.every((p, i) => p === b.prices[i]);

/**
 * The merge rule written the plain way, one object at a time: incoming observations in time order; the
 * same identity replaces (or is a no-op when equal); a non-closing price equal to the latest earlier
 * observation of its match, market and source is a repeat and dropped.
 */
function referenceMerge(existing: OddsObservation[], incoming: OddsObservation[]) {
  const list = [...existing];
  let added = 0;
  let replaced = 0;
  const sorted = incoming
    .map((o, i) => ({ o, i }))
    .sort((a, b) => a.o.observed_at.getTime() - b.o.observed_at.getTime() || a.i - b.i)
    .map((x) => x.o);
  for (const o of sorted) {
    const same = list.findIndex((e) => identity(e) === identity(o));
    if (same >= 0) {
      if (samePrices(list[same], o)) continue;
      list[same] = o;
      replaced++;
      continue;
    }
    if (o.kind !== 'closing') {
      let before: OddsObservation | undefined;
      for (const e of list)
        if (e.match_id === o.match_id && e.market === o.market && e.source === o.source)
          if (e.observed_at < o.observed_at && (!before || e.observed_at > before.observed_at)) before = e;
      if (before && samePrices(before, o)) continue;
    }
    list.push(o);
    added++;
  }
  return { list, added, replaced };
}

function randomObservations(next: () => number, n: number): OddsObservation[] {
  const out: OddsObservation[] = [];
  const kinds = ['opening', 'intermediate', 'closing'] as const;
  for (let i = 0; i < n; i++) {
    const market = (['1x2', 'ou25', 'btts'] as const)[Math.floor(next() * 3)];
    // Few distinct prices and times, so that repeats, returns (A → B → A) and identity clashes occur.
    const price = () => [1.5, 2, 3][Math.floor(next() * 3)];
    out.push({
      match_id: 1 + Math.floor(next() * 4),
      market,
      kind: kinds[Math.floor(next() * 3)],
      observed_at: new Date(Date.UTC(2024, 0, 1) + Math.floor(next() * 6) * 3_600_000),
      prices: market === '1x2' ? [price(), price(), price()] : [price(), price()],
      source: next() < 0.5 ? 'a' : 'b',
    });
  }
  return out;
}

const key = (o: OddsObservation) => `${identity(o)}|${o.kind}|${o.prices.join(',')}`;

test('observation columns round-trip through the file', async () => {
  const list = randomObservations(rng(7), 50);
  const c = ObservationColumns.of(list);
  const back = await ObservationColumns.decode(c.encode(list.map((_, i) => i)));
  assert.deepEqual(
    Array.from({ length: back.length }, (_, i) => back.observation(i)),
    list,
  );
});

for (const backend of BACKENDS) {
  test(`the column merge keeps what the plain rule keeps (${backend.name})`, {
    skip: backend.skip,
  }, async () => {
    const { db, cleanup } = await backend.open();
    const dir = mkdtempSync(path.join(tmpdir(), 'mc-merge-'));
    const store = createObjectStore(parseConfig({ DATA_DIR: dir }));
    try {
      let expected: OddsObservation[] = [];
      for (let round = 0; round < 12; round++) {
        const next = rng(1000 + round);
        const incoming = randomObservations(next, 5 + Math.floor(next() * 30));
        const want = referenceMerge(expected, incoming);
        const got = await mergeOddsObservations({ db, store }, incoming);
        assert.equal(got.added, want.added, `round ${round}: added`);
        assert.equal(got.replaced, want.replaced, `round ${round}: replaced`);
        expected = want.list;
        const stored = await readOddsObservations({ db, store });
        assert.deepEqual(stored.map(key).sort(), expected.map(key).sort(), `round ${round}: stored set`);
        assert.equal(got.rows, expected.length);
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await cleanup();
    }
  });
}
