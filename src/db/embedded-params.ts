/**
 * PostgreSQL settings of the embedded database, after PGlite's own. The default 128 MB of shared
 * buffers are touched at start and stay resident; the data of a start (tens of MB) needs a fraction
 * of them: 32 MB hold ~100 MB less.
 */
export const EMBEDDED_START_PARAMS: readonly string[] = ['-c', 'shared_buffers=32MB'];
