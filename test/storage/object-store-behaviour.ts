import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMatchcastError } from '../../src/domain/index.js';
import type { ObjectStore } from '../../src/storage/index.js';

/** A store under test plus how to tear it down. */
export interface StoreFixture {
  store: ObjectStore;
  cleanup(): Promise<void>;
}

export const INVALID_KEYS = [
  '',
  '../x',
  'a/../../x',
  '..',
  '.',
  'a/./b',
  '/etc/passwd',
  'a\\b',
  '..\\..\\x',
  'a//b',
  'a/',
  'x\u0000y',
  'x\ny',
  'x\u007fy',
  `${'a'.repeat(1025)}`,
  `${'b'.repeat(201)}/x`,
  '.mc-tmp-x',
  'a/.mc-lock-b',
];

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isMatchcastError(err), `expected a MatchcastError, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  });
}

/** Options of {@link objectStoreBehaviour}. */
export interface BehaviourOptions {
  /**
   * Size of the object of the tests that read a key while it is written, bytes; `0` skips them
   * (s3rver truncates and rewrites an object's file in place, so the test server itself is not
   * atomic; AWS S3, MinIO and R2 are).
   */
  largeBytes: number;
}

/** Asserts `got` is the whole object of `size` bytes all equal to one of `fills`; returns that byte. */
function assertWhole(got: { body: Buffer }, size: number, fills: readonly number[]): number {
  assert.equal(got.body.length, size, 'partial object seen');
  const first = got.body[0] ?? -1;
  assert.ok(fills.includes(first), `unexpected content ${first}`);
  assert.ok(
    got.body.every((b) => b === first),
    'mixed object seen',
  );
  return first;
}

/** The behaviour every ObjectStore driver must show. */
export function objectStoreBehaviour(
  name: string,
  setup: () => Promise<StoreFixture>,
  { largeBytes }: BehaviourOptions,
): void {
  describe(`ObjectStore behaviour: ${name}`, () => {
    let fx: StoreFixture;
    let s: ObjectStore;
    before(async () => {
      fx = await setup();
      s = fx.store;
    });
    after(async () => {
      await fx?.cleanup();
    });

    test('put/get/head round trip with matching etags', async () => {
      const info = await s.put('reports', 'a/b/c.json', '{"x":1}', { contentType: 'application/json' });
      assert.equal(info.key, 'a/b/c.json');
      assert.equal(info.size, 7);
      assert.match(info.etag, /^[0-9a-f-]+$/);
      const got = await s.get('reports', 'a/b/c.json');
      assert.ok(got);
      assert.equal(got.body.toString(), '{"x":1}');
      assert.equal(got.etag, info.etag);
      assert.equal(got.size, 7);
      assert.equal(got.contentType, 'application/json');
      assert.ok(got.lastModified instanceof Date);
      const head = await s.head('reports', 'a/b/c.json');
      assert.deepEqual(head && { key: head.key, size: head.size, etag: head.etag }, {
        key: 'a/b/c.json',
        size: 7,
        etag: info.etag,
      });
      // Binary bodies survive unchanged.
      const bin = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await s.put('models', 'run-1/model.bin', bin);
      assert.deepEqual((await s.get('models', 'run-1/model.bin'))?.body, bin);
    });

    test('absent objects: get/head null, delete is a no-op', async () => {
      assert.equal(await s.get('features', 'nope/never.parquet'), null);
      assert.equal(await s.head('features', 'nope/never.parquet'), null);
      await s.delete('features', 'nope/never.parquet');
      // A key below an existing object's name is simply absent.
      assert.equal(await s.get('reports', 'a/b/c.json/deeper'), null);
    });

    test('overwrite replaces the content and changes the etag', async () => {
      const a = await s.put('predictions', 'p.parquet', 'version-1');
      const b = await s.put('predictions', 'p.parquet', 'version-2');
      assert.notEqual(a.etag, b.etag);
      assert.equal((await s.head('predictions', 'p.parquet'))?.etag, b.etag);
      assert.equal((await s.get('predictions', 'p.parquet'))?.body.toString(), 'version-2');
    });

    test('list by prefix: recursive, sorted, exact prefix semantics', async () => {
      for (const k of ['m/z.txt', 'm/a.txt', 'm/b/c.txt', 'm/bc.txt', 'm/b/a/d.txt', 'n/x.txt', 'ü/ß.json']) {
        await s.put('raw-data', k, k);
      }
      const all = (await s.list('raw-data')).map((o) => o.key);
      assert.deepEqual(all, [
        'm/a.txt',
        'm/b/a/d.txt',
        'm/b/c.txt',
        'm/bc.txt',
        'm/z.txt',
        'n/x.txt',
        'ü/ß.json',
      ]);
      assert.deepEqual(
        (await s.list('raw-data', 'm/b')).map((o) => o.key),
        ['m/b/a/d.txt', 'm/b/c.txt', 'm/bc.txt'],
      );
      assert.deepEqual(
        (await s.list('raw-data', 'm/b/')).map((o) => o.key),
        ['m/b/a/d.txt', 'm/b/c.txt'],
      );
      assert.deepEqual(await s.list('raw-data', 'zzz'), []);
      const one = (await s.list('raw-data', 'n/'))[0];
      assert.equal(one?.size, 'n/x.txt'.length);
      assert.equal(one?.etag, (await s.head('raw-data', 'n/x.txt'))?.etag);
      await rejectsWith(s.list('raw-data', '../'), 'MC_ERR_INVALID_KEY');
    });

    test('delete removes the object and it no longer lists', async () => {
      await s.put('reports', 'del/one.txt', '1');
      await s.put('reports', 'del/two.txt', '2');
      await s.delete('reports', 'del/one.txt');
      assert.equal(await s.get('reports', 'del/one.txt'), null);
      assert.deepEqual(
        (await s.list('reports', 'del/')).map((o) => o.key),
        ['del/two.txt'],
      );
      await s.delete('reports', 'del/two.txt');
      assert.deepEqual(await s.list('reports', 'del/'), []);
      // The name can be reused as a plain object once its "folder" is gone.
      await s.put('reports', 'del', 'now a file');
      assert.equal((await s.get('reports', 'del'))?.body.toString(), 'now a file');
    });

    test('invalid keys are refused by every operation', async () => {
      for (const key of INVALID_KEYS) {
        await rejectsWith(s.put('reports', key, 'x'), 'MC_ERR_INVALID_KEY');
        await rejectsWith(s.get('reports', key), 'MC_ERR_INVALID_KEY');
        await rejectsWith(s.head('reports', key), 'MC_ERR_INVALID_KEY');
        await rejectsWith(s.delete('reports', key), 'MC_ERR_INVALID_KEY');
        await rejectsWith(s.presign('reports', key, 60), 'MC_ERR_INVALID_KEY');
      }
      // @ts-expect-error an unknown bucket is refused at run time too
      await rejectsWith(s.put('etc', 'x', 'x'), 'MC_ERR_INVALID_KEY');
      assert.deepEqual(
        (await s.list('reports', '')).filter((o) => o.key.includes('..')),
        [],
      );
    });

    test('percent-encoded dots are a literal key name', async () => {
      await s.put('reports', '%2e%2e/x', 'literal');
      assert.equal((await s.get('reports', '%2e%2e/x'))?.body.toString(), 'literal');
      assert.deepEqual(
        (await s.list('reports', '%2e')).map((o) => o.key),
        ['%2e%2e/x'],
      );
    });

    test('concurrent puts of different keys in one folder each land whole', async () => {
      const size = 256 << 10;
      const keys = Array.from({ length: 6 }, (_, i) => `race/part-${i}.bin`);
      const infos = await Promise.all(keys.map((k, i) => s.put('features', k, Buffer.alloc(size, 65 + i))));
      for (const [i, k] of keys.entries()) {
        const got = await s.get('features', k);
        assert.ok(got, k);
        assert.equal(assertWhole(got, size, [65 + i]), 65 + i);
        assert.equal(got.etag, infos[i]?.etag);
      }
      assert.deepEqual(
        (await s.list('features', 'race/')).map((o) => [o.key, o.size]),
        keys.map((k) => [k, size]),
      );
    });

    test('a reader during a put of its key sees no object, or the old or new bytes, never a partial one', {
      skip: largeBytes === 0 && 'the test server rewrites objects in place',
    }, async () => {
      const size = largeBytes;
      const A = 65;
      const B = 66;
      let stop = false;
      const seen = { none: 0, whole: 0 };
      const reader = (async () => {
        while (!stop) {
          const got = await s.get('features', 'big.bin');
          if (got) {
            assertWhole(got, size, [A, B]);
            seen.whole++;
          } else {
            // Absent only before the first write lands.
            assert.equal(seen.whole, 0, 'object vanished during overwrite');
            seen.none++;
          }
        }
      })();
      try {
        // The first write of the key, then overwrites while the reader runs.
        for (let i = 0; i < 7; i++) await s.put('features', 'big.bin', Buffer.alloc(size, i % 2 ? B : A));
      } finally {
        stop = true;
        await reader;
      }
      assert.ok(seen.whole > 0, JSON.stringify(seen));
    });
  });
}
