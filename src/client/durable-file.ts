// Durable, private JSON files: the lowdb adapter behind inbox.json, outbox.json and peers.json,
// and the writer of profile.json and secret.key. See docs/decisions/0010.
//
// A write never leaves a half-written file behind: the new content goes to a temporary file in
// the same folder (rename is only atomic within one file system), which is fsynced before it is
// renamed over the target, and the folder is fsynced after, so that after a crash the name points
// either to the old content or to the new, both complete. Files are created 0600 because they
// hold the room secret or the conversation.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { PapoError } from './errors.js';

/** Writes `content` to `path` atomically and durably, with the given mode (default 0600). */
export async function writeFileDurable(
  path: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    // open() applies the umask; chmod makes the mode exact whatever the umask is.
    await handle.chmod(mode);
    await handle.writeFile(content);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  await syncDir(dir);
}

/** Makes a rename or a new file in `dir` survive a crash (fsync of the folder). */
export async function syncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (err) {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is still atomic there.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    await handle?.close();
  }
}

/** Reads and parses a JSON file; null when it does not exist, 'profile_corrupt' when unreadable JSON. */
export async function readJsonFile<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
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
