// `npm install` on the oldest Node that package.json's `engines` admits prints no EBADENGINE warning:
// every locked package supports it, and README, .ci/run and the Dockerfile name the same version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import semver from 'semver';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
}

test('every locked package supports the oldest Node that engines admits', () => {
  const wanted = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const floor = semver.minVersion(wanted);
  assert.ok(floor, `engines.node "${wanted}" has no minimum`);
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
  const refused: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (where === '' || range === undefined) continue;
    if (!semver.satisfies(floor, range)) refused.push(`${where}@${entry.version}: node ${range}`);
  }
  assert.deepEqual(refused, [], `packages refusing Node ${floor.version}`);
  // The machine's own Node is admitted too (CI runs on it).
  assert.ok(semver.satisfies(process.versions.node, wanted), `Node ${process.versions.node} vs ${wanted}`);
});

test('README, .ci/run and the Dockerfile agree with engines', () => {
  const wanted = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const floor = semver.minVersion(wanted)!;
  const majorMinor = `${floor.major}.${floor.minor}`;
  assert.match(
    read('README.md'),
    new RegExp(`Node ${floor.major} \\(${majorMinor.replace('.', '\\.')} or later`),
  );
  assert.match(read('.ci/run'), /engines\.node/, '.ci/run checks the Node version against engines');
  for (const from of read('deploy/Dockerfile').matchAll(/^FROM node:(\d+)/gm))
    assert.equal(Number(from[1]), floor.major, 'the image runs the major version engines names');
});
