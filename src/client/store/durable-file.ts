// Durable, private JSON files: the lowdb adapter behind outbox.json, peers.json and names.json,
// and the writer of the files papo replaces whole (profile.json, secret.key, each message file of
// inbox/ and held/, review.json). See docs/decisions/0010.
//
// A write never leaves a half-written file behind: the new content goes to a temporary file in
// the same folder (rename is only atomic within one file system), which is fsynced before it is
// renamed over the target, and the folder is fsynced after, so that after a crash the name points
// either to the old content or to the new, both complete. Files are created 0600 because they
// hold the room secret or the conversation.
//
// The system calls are synchronous (ADR 0056): a message is stored before it is acked and queued
// before it is sent, so these writes are on the path of every message, and nine asynchronous
// calls cost more in thread-pool hops than the disk does (measured: 1.6-1.8 ms a write, most of
// it waiting, against about 0.3 ms of fsync). The event loop waits for the disk instead, for
// files of a few kilobytes.
//
// No link is followed (ADR 0061, no-follow.ts): reads use O_NOFOLLOW, the temporary file is created
// O_CREAT|O_EXCL|O_NOFOLLOW, and a symbolic link at the target is refused before anything is
// written (the rename would replace it rather than write through it, but the user made that link).
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { PapoError } from '../errors.js';
import { OPEN_CREATE_NEW, openNoFollowSync, readNoFollow, refuseLinkAt } from './no-follow.js';

/** Writes `content` to `path` atomically and durably, with the given mode (default 0600). */
export async function writeFileDurable(
  path: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  writeFileDurableSync(path, content, mode);
}

/**
 * The synchronous form of writeFileDurable, for callers that are synchronous themselves (papo
 * install writing an agent client's configuration, src/cli/install/config-file.ts).
 */
export function writeFileDurableSync(path: string, content: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  refuseLinkAt(path);
  const fd = openNoFollowSync(temp, OPEN_CREATE_NEW, mode);
  try {
    // open() applies the umask; chmod makes the mode exact whatever the umask is.
    fchmodSync(fd, mode);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeQuietly(fd);
    removeQuietly(temp);
    throw err;
  }
  try {
    closeSync(fd);
    renameSync(temp, path);
  } catch (err) {
    removeQuietly(temp);
    throw err;
  }
  syncDirSync(dir);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // The write already failed; that error is the one to report.
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or the folder is unwritable: nothing more to do.
  }
}

/** Makes a rename or a new file in `dir` survive a crash (fsync of the folder). */
export async function syncDir(dir: string): Promise<void> {
  syncDirSync(dir);
}

function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (err) {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is still atomic there.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads a UTF-8 file; null when it does not exist; PapoError 'profile_link' when it is a link. */
export function readTextFile(path: string): Promise<string | null> {
  return readNoFollow(path);
}

/** Reads and parses a JSON file; null when it does not exist, 'profile_corrupt' when unreadable JSON. */
export async function readJsonFile<T>(path: string): Promise<T | null> {
  const text = await readTextFile(path);
  return text === null ? null : parseJsonText<T>(text, path);
}

/** The JSON in a file's text; PapoError 'profile_corrupt' naming `path` when it is not JSON. */
export function parseJsonText<T>(text: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new PapoError('profile_corrupt', `${path} is not valid JSON`, { cause: err });
  }
}

/**
 * lowdb adapter over one JSON file, written with writeFileDurable. Writes are queued so that two
 * overlapping `db.write()` calls land on disk in the order they were made (the later state wins).
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly path: string;
  #queue: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  read(): Promise<T | null> {
    return readJsonFile<T>(this.path);
  }

  write(data: T): Promise<void> {
    // Serialise now: the caller may mutate `data` before the queued write runs.
    const text = `${JSON.stringify(data, null, 2)}\n`;
    const next = this.#queue.then(() => writeFileDurable(this.path, text));
    // A failed write must not block the ones after it; the caller still sees its own failure.
    this.#queue = next.catch(() => {});
    return next;
  }
}
