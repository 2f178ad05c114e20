import { readFileSync } from 'node:fs';

/** The service version string of `/healthcheck/` and `/` (spec §9), from package.json. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
