import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { MatchcastError, processAlive } from '../domain/index.js';

/**
 * PGlite corrupts a data folder that two processes open at once, so an on-disk database takes a pid
 * lock file beside it; a lock left by a dead process is taken over.
 */
export function acquireLock(dataDir: string): () => void {
  const lockFile = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new MatchcastError(
          'MC_ERR_DATABASE_UNAVAILABLE',
          `The embedded database ${dataDir} is in use by process ${pid}, which does not share it; wait for it to finish (commands run beside \`matchcast start\` share its database)`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new MatchcastError('MC_ERR_DATABASE_UNAVAILABLE', `Could not lock the embedded database ${dataDir}`);
}
