import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { MatchcastError, processAlive } from '../domain/index.js';

/** PGlite corrupts a folder two processes open at once: take a pid lock beside it (a dead owner's too). */
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
