#!/usr/bin/env node
// Bundles the browser UI (web/src) with esbuild into web/dist: minified, content-hashed JS and CSS,
// and an index.html that references them with no inline script or style (strict CSP).
// The output is written to a temporary folder and swapped in, so a server never sees half a build.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds the UI.
 * @param {{ root?: string, outDir?: string, minify?: boolean }} [options]
 *   root: repository root (default: this script's parent); outDir: default `<root>/web/dist`;
 *   minify: default true.
 * @returns {Promise<{ outDir: string, files: { name: string, bytes: number, gzipBytes: number }[] }>}
 */
export async function buildWeb(options = {}) {
  const root = options.root ?? ROOT;
  const outDir = options.outDir ?? path.join(root, 'web', 'dist');
  const srcDir = path.join(root, 'web', 'src');
  const { build } = await import('esbuild');
  const tmp = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(tmp, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: [path.join(srcDir, 'main.tsx')],
      bundle: true,
      minify: options.minify ?? true,
      format: 'esm',
      target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: path.join(tmp, 'assets'),
      entryNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      metafile: true,
      legalComments: 'none',
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const outputs = Object.keys(result.metafile.outputs).map((p) =>
      path.relative(tmp, path.resolve(root, p)),
    );
    const js = outputs.filter((p) => p.endsWith('.js'));
    const css = outputs.filter((p) => p.endsWith('.css'));
    const template = await readFile(path.join(srcDir, 'index.html'), 'utf8');
    // Relative URLs so the page works under /ui/ and behind a path prefix.
    const html = template
      .replace('<!--STYLES-->', css.map((p) => `<link rel="stylesheet" href="${toUrl(p)}" />`).join('\n    '))
      .replace(
        '<!--SCRIPTS-->',
        js.map((p) => `<script type="module" src="${toUrl(p)}"></script>`).join('\n    '),
      );
    await writeFile(path.join(tmp, 'index.html'), html);
    const files = [];
    for (const name of ['index.html', ...css, ...js]) {
      const body = await readFile(path.join(tmp, name));
      files.push({ name: toUrl(name), bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
    }
    await rm(outDir, { recursive: true, force: true });
    try {
      await rename(tmp, outDir);
    } catch (err) {
      // A concurrent build of the same sources got there first: its output is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      await rm(tmp, { recursive: true, force: true });
    }
    return { outDir, files };
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

function toUrl(p) {
  return p.split(path.sep).join('/');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = Date.now();
  buildWeb().then(
    ({ outDir, files }) => {
      for (const f of files) console.log(`  ${f.name.padEnd(36)} ${f.bytes} B  (${f.gzipBytes} B gzip)`);
      const gz = files.reduce((s, f) => s + f.gzipBytes, 0);
      console.log(
        `web UI built in ${Date.now() - started} ms → ${path.relative(process.cwd(), outDir) || '.'} (${gz} B gzip)`,
      );
    },
    (err) => {
      console.error('web UI build failed:', err.message ?? err);
      process.exit(1);
    },
  );
}
