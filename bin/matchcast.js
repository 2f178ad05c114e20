#!/usr/bin/env -S node --max-semi-space-size=2
// Runs the compiled CLI (dist/, `npm run build`) when it is built from the current sources; otherwise
// (a checkout being worked on, tests) runs the TypeScript sources through tsx, a development dependency.
// MATCHCAST_FROM_SOURCE=1 forces the sources, MATCHCAST_FROM_SOURCE=0 forces dist/.
import { readdirSync, statSync } from 'node:fs';
import v8 from 'node:v8';

// V8 grows each thread's young generation to 2 × 16 MB under load and keeps it at rest: most of a
// server's heap slack. `npm start`, the image and the shebang start node with a 2 MB semi-space; a
// plain `node bin/matchcast.js` still gets it for the threads it starts (a thread reads the flag then).
if (!process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  v8.setFlagsFromString('--max-semi-space-size=2');
}

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
