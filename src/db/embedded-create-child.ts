// Creates the embedded database in the folder its first argument names (initdb), then exits: run by
// embedded-host.ts in a process of its own, so that the ~350 MB initdb touches leave with it.
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_START_PARAMS } from './embedded-params.js';

try {
  const db = await PGlite.create(process.argv[2]!, {
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_START_PARAMS],
  });
  await db.close();
  process.exit(0);
} catch (err) {
  // PGlite's file-system errors carry a name and an errno, not a message.
  const e = err as { message?: string; name?: string; errno?: number } | undefined;
  process.stderr.write(e?.message || `${e?.name ?? 'error'} ${e?.errno ?? ''}`.trim());
  process.exit(1);
}
