#!/usr/bin/env node
// `npm run build`: compiles the server (src/**/*.ts → dist/**/*.js, one file per module, ESM, with
// source maps) and bundles the web UI (web/src → web/dist). Type checking is `npm run typecheck`;
// esbuild only strips types (the sources are written for isolatedModules), so the build takes about a
// second. `dist/BUILD.json` is written last: bin/matchcast.js runs dist/ only when it is present and
// newer than every source file.
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function sources(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(full)));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Compiles src/ into dist/ (swapped in whole, so a running server never sees half a build). */
export async function buildServer(root = ROOT) {
  const { build } = await import('esbuild');
  const srcDir = path.join(root, 'src');
  const outDir = path.join(root, 'dist');
  const tmp = `${outDir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  const entryPoints = await sources(srcDir);
  await build({
    absWorkingDir: root,
    entryPoints,
    outbase: srcDir,
    outdir: tmp,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'warning',
  });
  await writeFile(
    path.join(tmp, 'BUILD.json'),
    `${JSON.stringify({ built_at: new Date().toISOString(), modules: entryPoints.length }, null, 2)}\n`,
  );
  await rm(outDir, { recursive: true, force: true });
  await rename(tmp, outDir);
  return { outDir, modules: entryPoints.length };
}

/** Newest modification time (ms) of any file under `dir`, or 0. */
export async function newestMtime(dir) {
  let newest = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? await newestMtime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const onlyIfStale = process.argv.includes('--if-stale');
  const started = Date.now();
  const stamp = await stat(path.join(ROOT, 'dist', 'BUILD.json')).catch(() => null);
  const webBuilt = await stat(path.join(ROOT, 'web', 'dist', 'index.html')).catch(() => null);
  const serverFresh = stamp !== null && stamp.mtimeMs >= (await newestMtime(path.join(ROOT, 'src')));
  const webFresh =
    webBuilt !== null && webBuilt.mtimeMs >= (await newestMtime(path.join(ROOT, 'web', 'src')));
  if (!onlyIfStale || !serverFresh) {
    const { modules } = await buildServer();
    console.log(`server compiled: ${modules} modules → dist/ (${Date.now() - started} ms)`);
  }
  if (!onlyIfStale || !webFresh) {
    const t = Date.now();
    await mkdir(path.join(ROOT, 'web'), { recursive: true });
    const { buildWeb } = await import('./build-web.mjs');
    await buildWeb();
    console.log(`web UI bundled → web/dist/ (${Date.now() - t} ms)`);
  }
}
