import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MatchcastError } from '../domain/index.js';

/** Options of {@link acquireFileLock}. */
export interface FileLockOptions {
  /** A lock older than this is considered abandoned and taken over, ms. Default `30000`. */
  staleMs?: number;
  /** Give up waiting for the lock after this long (MC_ERR_CONFLICT), ms. Default `10000`. */
  timeoutMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  at: number;
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid === 'number' && typeof o.nonce === 'string' && typeof o.at === 'number') {
      return { pid: o.pid, host: String(o.host ?? ''), nonce: o.nonce, at: o.at };
    }
  } catch {
    // A half-written lock file (crash during create) has no valid owner; its age decides.
  }
  return null;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

async function readOwner(file: string): Promise<{ owner: LockOwner | null; raw: string } | null> {
  try {
    const raw = await readFile(file, 'utf8');
    return { owner: parseOwner(raw), raw };
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Takes an exclusive lock between processes on one machine (or one shared folder): a lock file
 * created with O_EXCL that holds the owner's pid, host, a nonce and a timestamp. A lock whose
 * owner process is gone (same host) or that is older than `staleMs` is taken over; the take-over
 * renames the file aside first and checks it moved the stale owner's file, so that two processes
 * recovering at once cannot both delete a fresh lock. Returns the release function.
 */
export async function acquireFileLock(
  lockPath: string,
  options: FileLockOptions = {},
): Promise<() => Promise<void>> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const host = hostname();
  const nonce = randomBytes(12).toString('hex');
  let delay = 1;
  for (;;) {
    const body = JSON.stringify({ pid: process.pid, host, nonce, at: Date.now() } satisfies LockOwner);
    try {
      const fh = await open(lockPath, 'wx', 0o600);
      try {
        await fh.writeFile(body);
      } finally {
        await fh.close();
      }
      return async () => {
        const current = await readOwner(lockPath);
        if (current?.owner?.nonce === nonce) await unlink(lockPath).catch(() => undefined);
      };
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOENT') {
        // The folder was pruned after the last object in it was deleted.
        await mkdir(path.dirname(lockPath), { recursive: true });
        continue;
      }
      if (code !== 'EEXIST') throw err;
    }

    const seen = await readOwner(lockPath);
    if (seen === null) continue; // released meanwhile
    const owner = seen.owner;
    const age = owner ? Date.now() - owner.at : staleMs + 1;
    const dead = owner !== null && owner.host === host && !processAlive(owner.pid);
    if (dead || age > staleMs) {
      const aside = `${lockPath}.${randomBytes(6).toString('hex')}`;
      try {
        await rename(lockPath, aside);
        const moved = await readOwner(aside);
        if (moved && moved.raw !== seen.raw) {
          // We moved a lock someone took after our check: put it back unless yet another
          // process holds the name now (link never overwrites).
          await link(aside, lockPath).catch(() => undefined);
        }
        await unlink(aside).catch(() => undefined);
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw err;
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new MatchcastError(
        'MC_ERR_CONFLICT',
        'Timed out waiting for a concurrent writer of the same object',
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}
