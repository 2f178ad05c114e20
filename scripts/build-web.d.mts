/** Types of scripts/build-web.mjs for TypeScript callers (tests, the /ui/ route's on-demand build). */
export interface BuildWebOptions {
  /** Repository root. Default: the parent of scripts/. */
  root?: string;
  /** Output folder. Default `<root>/web/dist`. */
  outDir?: string;
  /** Minify the bundle. Default `true`. */
  minify?: boolean;
}

export interface BuiltFile {
  name: string;
  bytes: number;
  gzipBytes: number;
}

export function buildWeb(options?: BuildWebOptions): Promise<{ outDir: string; files: BuiltFile[] }>;
