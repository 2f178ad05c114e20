import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MatchcastError, processAlive } from '../domain/index.js';

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

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

async function readOwner(
  file: string,
): Promise<{ owner: LockOwner | null; raw: string; takenAt: number } | null> {
  try {
    const raw = await readFile(file, 'utf8');
    const owner = parseOwner(raw);
    // When the lock was taken: its record says so; one that does not parse (a lock left by an older
    // version, a damaged disk) is dated by the file's mtime.
    return { owner, raw, takenAt: owner ? owner.at : (await stat(file)).mtimeMs };
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Takes an exclusive lock between processes on one machine (or one shared folder): a lock file,
 * published whole with link(), that holds the owner's pid, host, a nonce and a timestamp. A lock whose
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
    // The owner record is written to a private file first and published with link(), which never
    // replaces a name: the lock file appears complete or not at all. (Created in place with O_EXCL,
    // it was empty until the write landed, and a contender reading it then took it for a crashed
    // owner's and removed a live lock: two writers at once, a lost compare-and-swap update.)
    const draft = `${lockPath}.${nonce}.draft`;
    try {
      await writeFile(draft, body, { mode: 0o600 });
      await link(draft, lockPath);
      await unlink(draft).catch(() => undefined);
      return async () => {
        const current = await readOwner(lockPath);
        if (current?.owner?.nonce === nonce) await unlink(lockPath).catch(() => undefined);
      };
    } catch (err) {
      await unlink(draft).catch(() => undefined);
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
    const age = Date.now() - seen.takenAt;
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
