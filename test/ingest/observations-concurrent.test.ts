import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config.js';
import type { OddsObservation } from '../../src/domain/index.js';
import { readOddsObservations } from '../../src/ingest/index.js';
import { mergeOddsObservations } from '../../src/ingest/observations-file.js';
import { createObjectStore } from '../../src/storage/index.js';
import { BACKENDS } from '../db/helpers.js';

function obs(matchId: number, price: number): OddsObservation {
  return {
    match_id: matchId,
    market: '1x2',
    kind: 'opening',
    observed_at: new Date(Date.UTC(2024, 0, 1, 12)),
    prices: [price, 3.4, 4.1],
    source: 'test',
  } as OddsObservation;
}

for (const backend of BACKENDS) {
  test(`concurrent merges keep every observation (${backend.name})`, { skip: backend.skip }, async () => {
    const { db, cleanup } = await backend.open();
    const dir = mkdtempSync(path.join(tmpdir(), 'mc-obs-'));
    const store = createObjectStore(parseConfig({ DATA_DIR: dir }));
    try {
      // Six ingests at once, each adding odds of another fixture: none may lose another's.
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => mergeOddsObservations({ db, store }, [obs(i + 1, 2 + i / 10)])),
      );
      const all = await readOddsObservations({ db, store });
      assert.deepEqual(
        all.map((o) => o.match_id).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6],
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await cleanup();
    }
  });
}
