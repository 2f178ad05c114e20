#!/usr/bin/env node
// Runs the compiled CLI (dist/, `npm run build`) when it is built from the current sources; otherwise
// (a checkout being worked on, tests) runs the TypeScript sources through tsx, a development dependency.
// MATCHCAST_FROM_SOURCE=1 forces the sources, MATCHCAST_FROM_SOURCE=0 forces dist/.
import { readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const stamp = new URL('dist/BUILD.json', root);

/** Newest modification time of any file under `dir` (0 when there is none, e.g. an image without src/). */
function newest(dir) {
  let t = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = new URL(e.name + (e.isDirectory() ? '/' : ''), dir);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function useDist() {
  const mode = process.env.MATCHCAST_FROM_SOURCE;
  if (mode === '1') return false;
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  return mode === '0' || built >= newest(new URL('src/', root));
}

if (useDist()) {
  await import(new URL('dist/cli.js', root).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
