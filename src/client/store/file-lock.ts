// One holder per profile: the `lock` file in the profile folder. See docs/decisions/0011.
//
// The lock file is created atomically (link of a complete temporary file, which fails if the
// name exists) and holds {pid, host, token}. A lock whose holder is gone is stale and is taken
// over, so a `papo mcp` killed with kill -9 never blocks the next one:
// - same host: stale when the pid is no longer alive (or is our own pid but we do not hold it,
//   which is a restarted container reusing pid 1);
// - another host (a container with its own hostname, a shared folder): stale when the holder has
//   not refreshed the file's mtime for `staleMs`; a holder refreshes it every `heartbeatMs`.
// Breaking a stale lock is serialised by a short-lived guard file, so two processes that both see
// the same stale lock cannot both remove it and end up both holding a fresh one.
//
// Like every profile file, the lock is never read or written through a link (ADR 0061).
import { randomBytes } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { link, lutimes, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PapoError } from '../errors.js';
import { OPEN_CREATE_NEW, openNoFollow, readNoFollow, readNoFollowSync } from './no-follow.js';
import { LOCK_FILE } from './profile-files.js';

export const LOCKED_MESSAGE = 'another papo server is already running with this profile';

export interface ProfileLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export interface LockOptions {
  /** How often the holder refreshes the lock's mtime. Default 15 s. */
  heartbeatMs?: number;
  /** Age after which a lock of another host counts as abandoned. Default 60 s. */
  staleMs?: number;
}

interface LockInfo {
  pid: number;
  host: string;
  token: string;
}

/** Lock paths this process holds, so a second acquire in the same process is refused too. */
const held = new Set<string>();

/** Takes the lock of the profile in `dir`, or throws PapoError 'profile_locked'. */
export async function acquireLock(dir: string, options: LockOptions = {}): Promise<ProfileLock> {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const staleMs = options.staleMs ?? 60_000;
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new PapoError('profile_locked', LOCKED_MESSAGE);

  const info: LockInfo = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') };
  const content = `${JSON.stringify(info)}\n`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await tryCreate(path, content)) return holdLock(path, content, heartbeatMs);
    let current: string | null;
    try {
      current = await readNoFollow(path);
    } catch (err) {
      throw ioError(err, path);
    }
    if (current === null) continue; // released meanwhile
    if (!(await isStale(path, current, staleMs))) {
      throw new PapoError('profile_locked', LOCKED_MESSAGE);
    }
    if (!(await breakStale(path, current))) await delay(10 + Math.random() * 40);
  }
  throw new PapoError('profile_locked', LOCKED_MESSAGE);
}

/** Creates the lock file with its full content in one step; false if it already exists. */
async function tryCreate(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeNew(temp, content);
    await link(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw ioError(err, path);
  } finally {
    await unlink(temp).catch(() => {}); // absent when writeNew failed; a stray .tmp holds no lock
  }
}

async function isStale(path: string, content: string, staleMs: number): Promise<boolean> {
  const info = parseInfo(content);
  // link() publishes complete files only, so unreadable content is not a lock being written.
  if (info === null) return true;
  if (info.host === hostname()) {
    if (info.pid === process.pid) return !held.has(path);
    if (!isAlive(info.pid)) return true;
    // The pid lives, but it may be another process that reused it after a crash or a reboot:
    // a real holder refreshes the mtime every heartbeat, so an old mtime gives it away.
  }
  try {
    const st = await stat(path);
    return Date.now() - st.mtimeMs > staleMs;
  } catch {
    return false; // gone: the next attempt creates it
  }
}

/**
 * Removes the stale lock whose content we read, unless it changed meanwhile. Returns false when
 * another process is breaking it right now (the caller waits and looks again).
 */
async function breakStale(path: string, seen: string): Promise<boolean> {
  const guard = `${path}.break`;
  try {
    await writeNew(guard, `${process.pid}\n`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(err, guard);
    // A guard is held for milliseconds; an old one was left by a process killed mid-break.
    const st = await stat(guard).catch(() => null);
    if (st && Date.now() - st.mtimeMs > 10_000) await unlink(guard).catch(() => {}); // another removed it first: look again
    return false;
  }
  try {
    const now = await readNoFollow(path).catch(() => null);
    // The random token makes equal content mean the same lock incarnation.
    if (now === seen) await unlink(path).catch(() => {}); // gone already: the caller looks again
    return true;
  } finally {
    await unlink(guard).catch(() => {}); // one left behind is stale in 10 s, and broken then
  }
}

function holdLock(path: string, content: string, heartbeatMs: number): ProfileLock {
  held.add(path);
  // Refresh the mtime so that a process on another host can tell a live lock from an abandoned one.
  const timer = setInterval(() => {
    const now = new Date();
    lutimes(path, now, now).catch(() => {}); // a missed beat is made up by the next; staleMs spans several
  }, heartbeatMs);
  timer.unref();
  // Best effort on a normal exit (process.exit, end of the event loop); kill -9 is the stale case.
  const onExit = () => {
    try {
      if (readNoFollowSync(path) === content) unlinkSync(path);
    } catch {}
  };
  process.on('exit', onExit);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      process.off('exit', onExit);
      held.delete(path);
      const now = await readNoFollow(path).catch(() => null);
      if (now === content) await unlink(path).catch(() => {}); // gone already: nothing left to release
    },
  };
}

/** Creates `path` (which must not exist) with `content`, 0600, never through a link. */
async function writeNew(path: string, content: string): Promise<void> {
  const handle = await openNoFollow(path, OPEN_CREATE_NEW, 0o600);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

function parseInfo(content: string): LockInfo | null {
  try {
    const v = JSON.parse(content) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string') {
      return { pid: v.pid, host: v.host, token: v.token };
    }
  } catch {}
  return null;
}

/** True while a process with this id runs (as any user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ioError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new PapoError('home_unwritable', `cannot write ${path} (${code})`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
