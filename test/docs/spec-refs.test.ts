// The code cites the interface contract as `spec §N.M`; every cited section must exist in docs/spec.md,
// so a reader can follow each reference. Comments and docs stand alone: none points at an issue or a
// session number.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE = /\.(ts|tsx|mjs|js|css|md)$/;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...files(rel));
    else if (SOURCE.test(name)) out.push(rel);
  }
  return out;
}

/** `§7`, `4.8`, `§4.3–4.7` → the section numbers they name (a range expands within one section). */
function sectionsOf(token: string): string[] {
  const [from, to] = token.replaceAll('§', '').split(/[–-]/);
  if (to === undefined) return [from];
  const [major, a] = from.split('.');
  const [, b] = to.split('.');
  if (a === undefined || b === undefined) return [from, to];
  const out: string[] = [];
  for (let minor = Number(a); minor <= Number(b); minor++) out.push(`${major}.${minor}`);
  return out;
}

const NUM = '§?\\d+(?:\\.\\d+)?(?:[–-]\\d+(?:\\.\\d+)?)?';
/** "spec §4.8, §4.9 and §4.12", "spec 2.3", "spec §2.1/§2.2": the first number, then the listed ones. */
const CITATION = new RegExp(`\\bspec (${NUM}(?:(?:, | and | or |/)${NUM})*)`, 'gi');

function citedSections(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    for (const token of m[1].split(/, | and | or |\//)) out.push(...sectionsOf(token));
  }
  return out;
}

/** The section numbers docs/spec.md has headings for: `## 7. Errors` → 7, `### 2.7 Model info` → 2.7. */
function specSections(): Set<string> {
  const spec = readFileSync(path.join(ROOT, 'docs/spec.md'), 'utf8');
  const out = new Set<string>();
  for (const m of spec.matchAll(/^## (\d+)\. /gm)) out.add(m[1]);
  for (const m of spec.matchAll(/^### (\d+\.\d+) /gm)) out.add(m[1]);
  return out;
}

test('the citation parser reads single sections, lists and ranges', () => {
  assert.deepEqual(citedSections('(spec §2.7) and (spec §4.8, §4.9, §4.12)'), ['2.7', '4.8', '4.9', '4.12']);
  assert.deepEqual(citedSections('spec §7 and §3.3; Spec 2.3; spec §2.1/§2.2'), [
    '7',
    '3.3',
    '2.3',
    '2.1',
    '2.2',
  ]);
  assert.deepEqual(citedSections('spec §4.3–4.7'), ['4.3', '4.4', '4.5', '4.6', '4.7']);
  assert.deepEqual(citedSections('the spec leaves it open'), []);
});

test('every `spec §N.M` cited in src/ and test/ is a section of docs/spec.md', () => {
  const sections = specSections();
  assert.ok(sections.has('2.7') && sections.has('9'), 'docs/spec.md keeps its numbered headings');
  const missing: string[] = [];
  let cited = 0;
  const self = path.join('test', 'docs', 'spec-refs.test.ts');
  for (const file of [...files('src'), ...files('test')].filter((f) => f !== self)) {
    for (const section of citedSections(readFileSync(path.join(ROOT, file), 'utf8'))) {
      cited++;
      if (!sections.has(section)) missing.push(`${file}: spec §${section}`);
    }
  }
  assert.ok(cited > 50, `expected the code to cite the spec (found ${cited} citations)`);
  assert.deepEqual(missing, []);
});

test('no comment or doc points at an issue or session number', () => {
  const tag = /\b(?:issues?|sessions?) \d+/i;
  const offenders: string[] = [];
  const scanned = [
    ...['src', 'web/src', 'test', 'bench', 'scripts', 'docs'].flatMap(files),
    'README.md',
    'CONTRIBUTING.md',
  ];
  for (const file of scanned) {
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (tag.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(offenders, []);
});
