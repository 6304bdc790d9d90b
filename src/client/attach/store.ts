// Where attachments wait on disk (docs/decisions/0121-sealed-attachments.md, "Storage").
//
// The sender's store (`OutStore`, `attachments-out/`) keeps each file by its SHA-256, copied from
// the project while it is hashed, 64 KiB at a time (never whole in memory), from the very inode the
// path check saw: a file swapped, grown or changed between the check and the end of the copy is
// refused, so the hash in the manifest is the hash of the bytes that will be sent.
//
// The receiver's store (`PartialStore`, `attachments-in/<msg id>/`) writes chunks where they belong
// in `<index>.part`, records the ranges it holds in `<index>.ranges` (after the part is synced, so
// the record never claims bytes the disk lacks), and once whole checks size and SHA-256: a match
// becomes `<index>.file`, a mismatch is removed. `release` moves the verified files to
// `attachments/<msg id>/<safe name>` when the person approves.
//
// Files 0600, folders 0700, and nothing is written through a link (ADR 0061, store/no-follow.ts):
// files are opened O_NOFOLLOW or created O_EXCL, a folder papo makes that is found to be a link is
// refused, and a release that would resolve outside `attachments/` is refused.
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, rename, rm, unlink } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { PapoError } from '../errors.js';
import { readJsonFile, syncDir, writeFileDurable } from '../store/durable-file.js';
import {
  linkedFileError,
  OPEN_CREATE_NEW,
  OPEN_READ,
  openNoFollow,
  refuseLinkAt,
  sharedFileProblem,
} from '../store/no-follow.js';
import { ATTACH_IN_DIR, ATTACH_OUT_DIR, ATTACHMENTS_DIR } from '../store/profile-files.js';
import { MESSAGE_ID_PATTERN } from '../wire/names.js';
import { CHUNK_BYTES } from './constants.js';
import { type ManifestEntry, safeName } from './manifest.js';
import { attachRefused, type CheckedFile } from './project-path.js';
import { RangeSet } from './ranges.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Read and hash this much at a time. */
const COPY_BYTES = 64 * 1024;
const OPEN_READ_WRITE = constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
/**
 * Reading a file papo keeps: O_NONBLOCK, so that a fifo planted where a file should be is refused
 * (not a regular file) instead of holding open() until a writer comes.
 */
const OPEN_READ_KEPT = OPEN_READ | (constants.O_NONBLOCK ?? 0);

/**
 * Makes `dir` (0700) unless it is there; refuses one that is a link or not a folder. Its parent
 * must exist: papo makes its folders one level at a time, so no link is followed on the way.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await lstat(dir);
  if (st.isSymbolicLink()) throw linkedFileError(dir, 'symbolic');
  if (!st.isDirectory())
    throw new PapoError('profile_link', `${dir} is not a folder`, {
      detail: { path: dir, link: 'not_regular' },
    });
}

/** Refuses an opened file that is not a regular file of one name (a hard link planted in advance). */
async function refuseShared(fh: FileHandle, path: string): Promise<Stats> {
  const st = await fh.stat();
  const problem = sharedFileProblem(st);
  if (problem === undefined) return st;
  await fh.close();
  if (problem === 'hard') throw linkedFileError(path, 'hard');
  throw new PapoError('profile_link', `${path} is not a regular file`, {
    detail: { path, link: 'not_regular' },
  });
}

function tempName(dir: string, base: string): string {
  return join(dir, `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

function checkSha(sha256: string): void {
  if (!SHA256_HEX.test(sha256)) throw new RangeError('not a SHA-256 in hex');
}

function checkMsgId(id: string): void {
  if (!MESSAGE_ID_PATTERN.test(id)) throw new RangeError('not a message id');
}

/** A file in the sender's store. */
export interface StoredFile {
  sha256: string;
  size: number;
}

/** The sender's content-addressed store, `<profile>/attachments-out/<sha256>`. */
export class OutStore {
  readonly dir: string;

  constructor(profileDir: string) {
    this.dir = join(profileDir, ATTACH_OUT_DIR);
  }

  /** Where a file of this hash lives. */
  pathOf(sha256: string): string {
    checkSha(sha256);
    return join(this.dir, sha256);
  }

  /**
   * Copies a checked file (project-path.ts) into the store, hashing it as it goes. PapoError
   * 'attach_refused' ('changed') when it is not the file the check saw, or it grows, shrinks or
   * changes before the copy ends; the partial copy is removed.
   */
  async put(file: CheckedFile): Promise<StoredFile> {
    await ensurePrivateDir(this.dir);
    const changed = () => attachRefused({ problem: 'changed', path: file.given });
    let src: FileHandle;
    try {
      // O_NONBLOCK: a fifo swapped in after the check would otherwise hold open() until a writer came.
      src = await openNoFollow(file.path, OPEN_READ_KEPT);
    } catch (err) {
      if (err instanceof PapoError) throw changed();
      throw attachRefused({ problem: 'not_found', path: file.given });
    }
    const temp = tempName(this.dir, 'put');
    let out: FileHandle | undefined;
    try {
      const before = await src.stat();
      if (
        !before.isFile() ||
        before.dev !== file.dev ||
        before.ino !== file.ino ||
        before.size !== file.size ||
        before.mtimeMs !== file.mtimeMs
      )
        throw changed();
      out = await openNoFollow(temp, OPEN_CREATE_NEW, 0o600);
      await out.chmod(0o600);
      const hash = createHash('sha256');
      const buf = Buffer.alloc(COPY_BYTES);
      let total = 0;
      for (;;) {
        // One byte more than is left, so a file that grew is seen before the end.
        const want = Math.min(COPY_BYTES, file.size - total + 1);
        const { bytesRead } = await src.read(buf, 0, want, total);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > file.size) throw changed();
        const piece = buf.subarray(0, bytesRead);
        hash.update(piece);
        for (let done = 0; done < bytesRead; ) {
          const { bytesWritten } = await out.write(piece, done, bytesRead - done, total - bytesRead + done);
          done += bytesWritten;
        }
      }
      const after = await src.stat();
      if (
        total !== file.size ||
        after.size !== before.size ||
        after.mtimeMs !== before.mtimeMs ||
        after.ctimeMs !== before.ctimeMs
      )
        throw changed();
      await out.sync();
      await out.close();
      out = undefined;
      const sha256 = hash.digest('hex');
      const target = this.pathOf(sha256);
      // The same content sent before is the same file: keep one copy.
      if (await isRegularFile(target)) await unlink(temp);
      else {
        refuseLinkAt(target);
        await rename(temp, target);
        await syncDir(this.dir);
      }
      return { sha256, size: total };
    } catch (err) {
      await out?.close().catch(() => {});
      await rm(temp, { force: true });
      throw err;
    } finally {
      await src.close();
    }
  }

  /** `length` bytes of a stored file from `offset` (fewer at its end). */
  async read(sha256: string, offset: number, length: number): Promise<Buffer> {
    if (
      !Number.isSafeInteger(offset) ||
      offset < 0 ||
      !Number.isSafeInteger(length) ||
      length < 1 ||
      length > CHUNK_BYTES
    )
      throw new RangeError('not a range of a stored file');
    const fh = await openNoFollow(this.pathOf(sha256), OPEN_READ_KEPT);
    try {
      await refuseSharedKeepOpen(fh, this.pathOf(sha256));
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } finally {
      await fh.close();
    }
  }

  /** Whether a file of this hash is stored. */
  has(sha256: string): Promise<boolean> {
    return isRegularFile(this.pathOf(sha256));
  }

  /** Removes a file every recipient acked whole (or stopped); nothing when it is not there. */
  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }
}

async function refuseSharedKeepOpen(fh: FileHandle, path: string): Promise<void> {
  const problem = sharedFileProblem(await fh.stat());
  if (problem === 'hard') throw linkedFileError(path, 'hard');
  if (problem === 'not_regular')
    throw new PapoError('profile_link', `${path} is not a regular file`, {
      detail: { path, link: 'not_regular' },
    });
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) throw linkedFileError(path, 'symbolic');
    return st.isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** `size:sha256` of an open file, read 64 KiB at a time. */
async function hashOfOpen(fh: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const buf = Buffer.alloc(COPY_BYTES);
  let total = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, COPY_BYTES, total);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    total += bytesRead;
  }
  return `${total}:${hash.digest('hex')}`;
}

/** `size:sha256` of a regular file of one name at `path` (never through a link). */
async function hashOf(path: string): Promise<string> {
  const fh = await openNoFollow(path, OPEN_READ_KEPT);
  try {
    await refuseSharedKeepOpen(fh, path);
    return await hashOfOpen(fh);
  } finally {
    await fh.close();
  }
}

/** What became of a chunk handed to a partial file. */
export type ChunkOutcome = 'written' | 'duplicate' | 'too_many_ranges';
/** What finishing a partial file found. */
export type FinishOutcome = 'complete' | 'incomplete' | 'corrupt';

/** The record beside a part file: which file it is, and the ranges written. */
interface RangeRecord {
  size: number;
  sha256: string;
  ranges: unknown;
}

/** One file of a message as it arrives: `<index>.part` and its range record. */
export class PartialFile {
  readonly entry: ManifestEntry;
  readonly partPath: string;
  readonly recordPath: string;
  readonly donePath: string;
  readonly ranges: RangeSet;
  #fh: FileHandle | undefined;
  #unsaved = false;

  constructor(
    entry: ManifestEntry,
    paths: { part: string; record: string; done: string },
    ranges: RangeSet,
    fh: FileHandle,
  ) {
    this.entry = entry;
    this.partPath = paths.part;
    this.recordPath = paths.record;
    this.donePath = paths.done;
    this.ranges = ranges;
    this.#fh = fh;
  }

  #handle(): FileHandle {
    if (this.#fh === undefined) throw new TypeError('the partial file is closed');
    return this.#fh;
  }

  /**
   * Writes a chunk's bytes at `offset`. A chunk must lie within the file's size (checkAgainstManifest
   * checked it; a RangeError here is misuse); bytes already held are not written again
   * (`duplicate`); a chunk that would make the record pass its bound of ranges is not written
   * (`too_many_ranges`: asked again later, in order).
   */
  async write(offset: number, bytes: Uint8Array): Promise<ChunkOutcome> {
    const end = offset + bytes.length;
    if (!Number.isSafeInteger(offset) || offset < 0 || bytes.length === 0 || end > this.entry.size)
      throw new RangeError('a chunk beyond the file');
    if (this.ranges.has(offset, end)) return 'duplicate';
    if (!this.ranges.canAdd(offset, end)) return 'too_many_ranges';
    const fh = this.#handle();
    for (let done = 0; done < bytes.length; ) {
      const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, offset + done);
      done += bytesWritten;
    }
    this.ranges.add(offset, end);
    this.#unsaved = true;
    return 'written';
  }

  /** Syncs the part file, then writes the record durably: the record never claims unsynced bytes. */
  async save(): Promise<void> {
    if (!this.#unsaved) return;
    await this.#handle().sync();
    const record: RangeRecord = {
      size: this.entry.size,
      sha256: this.entry.sha256,
      ranges: this.ranges.toJSON(),
    };
    await writeFileDurable(this.recordPath, `${JSON.stringify(record)}\n`);
    this.#unsaved = false;
  }

  /**
   * When every byte is held: checks size and SHA-256. A match renames the part to `<index>.file`
   * (`complete`); a mismatch removes the part and its record (`corrupt`: ask again from the start).
   * The file is closed either way, unless `incomplete`.
   */
  async finish(): Promise<FinishOutcome> {
    if (!this.ranges.complete(this.entry.size)) return 'incomplete';
    const fh = this.#handle();
    const good = (await hashOfOpen(fh)) === `${this.entry.size}:${this.entry.sha256}`;
    if (good) await fh.sync();
    await this.close();
    if (!good) {
      await rm(this.partPath, { force: true });
      await rm(this.recordPath, { force: true });
      return 'corrupt';
    }
    refuseLinkAt(this.donePath);
    await rename(this.partPath, this.donePath);
    await rm(this.recordPath, { force: true });
    return 'complete';
  }

  /** Saves the record and closes the part file (a transfer that stops for now). */
  async close(): Promise<void> {
    const fh = this.#fh;
    if (fh === undefined) return;
    if (this.#unsaved) await this.save();
    this.#fh = undefined;
    await fh.close();
  }
}

/** A file released to the agent. */
export interface ReleasedFile {
  /** The manifest's name, made safe again (defence in depth: the parse already refused others). */
  name: string;
  path: string;
  size: number;
  sha256: string;
}

/** The receiver's store: `<profile>/attachments-in/<msg id>/` until release. */
export class PartialStore {
  readonly profileDir: string;
  readonly dir: string;
  readonly #maxRanges: number | undefined;

  /** `maxRanges`: the bound of each file's record (ranges.ts; its default unless a test says less). */
  constructor(profileDir: string, options: { maxRanges?: number } = {}) {
    this.profileDir = profileDir;
    this.dir = join(profileDir, ATTACH_IN_DIR);
    this.#maxRanges = options.maxRanges;
  }

  #messageDir(msgId: string): string {
    checkMsgId(msgId);
    return join(this.dir, msgId);
  }

  /**
   * Opens file `index` of message `msgId` to write chunks into, resuming from its record when the
   * record is of the same file (size and hash) and clipped to what the part file holds.
   */
  async open(msgId: string, index: number, entry: ManifestEntry): Promise<PartialFile> {
    if (!Number.isInteger(index) || index < 0) throw new RangeError('not a file index');
    const dir = this.#messageDir(msgId);
    await ensurePrivateDir(this.dir);
    await ensurePrivateDir(dir);
    const paths = {
      part: join(dir, `${index}.part`),
      record: join(dir, `${index}.ranges`),
      done: join(dir, `${index}.file`),
    };
    const fh = await openNoFollow(paths.part, OPEN_READ_WRITE, 0o600);
    const st = await refuseShared(fh, paths.part);
    try {
      await fh.chmod(0o600);
      let ranges = new RangeSet(this.#maxRanges);
      let record: RangeRecord | null = null;
      try {
        record = await readJsonFile<RangeRecord>(paths.record);
      } catch (err) {
        if (!(err instanceof PapoError && err.code === 'profile_corrupt')) throw err;
      }
      if (record !== null && record.size === entry.size && record.sha256 === entry.sha256) {
        const parsed = RangeSet.parse(record.ranges, entry.size, this.#maxRanges);
        if (parsed !== null) {
          parsed.clip(st.size);
          ranges = parsed;
        }
      } else if (st.size > 0) {
        await fh.truncate(0);
      }
      return new PartialFile(entry, paths, ranges, fh);
    } catch (err) {
      // Never left to the garbage collector: Node 26 ends the process for a FileHandle it closes.
      await fh.close().catch(() => {});
      throw err;
    }
  }

  /** Whether file `index` of `msgId` arrived whole and verified. */
  async isComplete(msgId: string, index: number): Promise<boolean> {
    return isRegularFile(join(this.#messageDir(msgId), `${index}.file`));
  }

  /** Removes what arrived for a message (its person rejected it, or it was forgotten). */
  async discard(msgId: string): Promise<void> {
    await rm(this.#messageDir(msgId), { recursive: true, force: true });
  }

  /**
   * Moves the verified files of `msgId` to `attachments/<msg id>/<safe name>` (0600, not
   * executable, folders 0700), in manifest order, and removes what is left of it in the store.
   * Refuses (PapoError) a file that is not whole, a link or a second name at a target, another
   * file already there, or a path that would resolve outside `attachments/`; a file already
   * released whole (a release cut short) counts as released.
   */
  async release(msgId: string, manifest: readonly ManifestEntry[]): Promise<ReleasedFile[]> {
    const from = this.#messageDir(msgId);
    const base = join(this.profileDir, ATTACHMENTS_DIR);
    const into = join(base, msgId);
    const names = manifest.map((entry) => safeName(entry.name, entry.sha256));
    if (new Set(names.map((n) => n.toLowerCase())).size !== names.length)
      throw new RangeError('two files of a message have one name');
    // Everything is checked before anything moves: each file whole here, or (a release cut short
    // by a crash) already at its place with its size and hash; no link or stranger at a target.
    const moves: { done: string; target: string }[] = [];
    for (const [i, name] of names.entries()) {
      const entry = manifest[i] as ManifestEntry;
      const target = resolve(into, name);
      const rel = relative(resolve(base), target);
      if (rel.startsWith('..') || rel.split(sep).length !== 2)
        throw new RangeError(`${name} would land outside ${base}`);
      refuseLinkAt(target);
      const done = join(from, `${i}.file`);
      const here = await lstat(done).catch(() => null);
      const there = await lstat(target).catch(() => null);
      if (here?.isFile() && here.nlink === 1 && there === null) moves.push({ done, target });
      else if (here === null && there !== null && (await hashOf(target)) === `${entry.size}:${entry.sha256}`)
        continue;
      else if (here !== null && there !== null) throw new PapoError('io', `${target} is already there`);
      else throw new PapoError('unknown_message', `file ${i} of ${msgId} has not arrived whole`);
    }
    await ensurePrivateDir(base);
    await ensurePrivateDir(into);
    for (const { done, target } of moves) {
      // Never executable, whatever mode the part was made with.
      const fh = await openNoFollow(done, OPEN_READ_KEPT);
      try {
        await refuseSharedKeepOpen(fh, done);
        await fh.chmod(0o600);
      } finally {
        await fh.close();
      }
      await rename(done, target);
    }
    await syncDir(into);
    await this.discard(msgId);
    return manifest.map((entry, i) => ({
      name: names[i] as string,
      path: join(into, names[i] as string),
      size: entry.size,
      sha256: entry.sha256,
    }));
  }
}
