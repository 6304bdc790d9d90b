// How papo opens the files of a profile: never through a symbolic link (ADR 0061). A link planted
// where log.jsonl or inbox.json should be would otherwise send message bodies, or the room secret,
// into whatever file it names (the 2026-12-01 review, docs/security.md "8.").
//
// O_NOFOLLOW makes open() fail with ELOOP when the last component of the path is a symbolic link;
// the folders above it may still be links (dotfiles managers link ~/.papo or a profile folder, and
// that is allowed: see docs/files.md). A new file is created O_CREAT|O_EXCL, which never follows a
// link either. Windows has no O_NOFOLLOW (the flag is 0 there) and creating links needs privileges.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { PapoError } from '../errors.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Reading an existing file. */
export const OPEN_READ = constants.O_RDONLY | NOFOLLOW;
/** Appending to a file, created if missing, that may also be read (log.jsonl reads its last byte). */
export const OPEN_APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;
/** Creating a file that must not exist yet (temporary files, the lock). */
export const OPEN_CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/** The error for a link where a profile file should be. */
export function linkedFileError(
  path: string,
  how: 'symbolic' | 'hard',
  cause?: unknown,
): PapoError<'profile_link'> {
  const what = how === 'symbolic' ? 'is a symbolic link' : 'has another hard link (it is also another file)';
  return new PapoError(
    'profile_link',
    `${path} ${what}; papo does not write or read the files of a profile through links: remove it, or put the real file there`,
    { detail: { path, link: how }, ...(cause === undefined ? {} : { cause }) },
  );
}

/** ELOOP (Linux, macOS) or EMLINK (FreeBSD) from O_NOFOLLOW: confirm the link, else rethrow. */
function mapOpenError(err: unknown, path: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'ELOOP' && code !== 'EMLINK') return err;
  try {
    if (lstatSync(path).isSymbolicLink()) return linkedFileError(path, 'symbolic', err);
  } catch {}
  return err;
}

/** open(2) of a profile file without following a link; `mode` applies when it is created. */
export function openNoFollowSync(path: string, flags: number, mode = 0o600): number {
  try {
    return openSync(path, flags, mode);
  } catch (err) {
    throw mapOpenError(err, path);
  }
}

/** The promise form of openNoFollowSync. */
export async function openNoFollow(path: string, flags: number, mode = 0o600): Promise<FileHandle> {
  try {
    return await open(path, flags, mode);
  } catch (err) {
    throw mapOpenError(err, path);
  }
}

/** A profile file's text, null when it does not exist; a link is a PapoError 'profile_link'. */
export async function readNoFollow(path: string): Promise<string | null> {
  try {
    return await readFile(path, { encoding: 'utf8', flag: OPEN_READ });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw mapOpenError(err, path);
  }
}

/** The synchronous form of readNoFollow. */
export function readNoFollowSync(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, OPEN_READ);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw mapOpenError(err, path);
  }
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses a symbolic link at `path` before a file is renamed over it. The rename itself would
 * replace the link, not write through it; refusing keeps the user's link and says why.
 */
export function refuseLinkAt(path: string): void {
  let isLink = false;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (isLink) throw linkedFileError(path, 'symbolic');
}

/**
 * Refuses an opened file that is not a regular file with one name: a hard link made in advance is
 * another file's content too, and appending to it would write there (O_NOFOLLOW cannot see it).
 * Closes `fd` before throwing.
 */
export function refuseSharedFileSync(fd: number, path: string): void {
  const problem = sharedFileProblem(fstatSync(fd));
  if (problem === undefined) return;
  closeSync(fd);
  if (problem === 'not_regular') {
    throw new PapoError('profile_link', `${path} is not a regular file`, {
      detail: { path, link: 'not_regular' },
    });
  }
  throw linkedFileError(path, 'hard');
}

/** Why a file is not one papo reads or writes through: not a regular file, or one with a second name. */
export function sharedFileProblem(st: Stats): 'not_regular' | 'hard' | undefined {
  if (!st.isFile()) return 'not_regular';
  return st.nlink > 1 ? 'hard' : undefined;
}
