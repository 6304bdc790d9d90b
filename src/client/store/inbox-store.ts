// The inbox as a folder: one file per unread message (ADR 0062). papo 0.1 kept the inbox in one
// JSON array (docs/files.md, "Who writes what"), rewritten whole (with an fsync) for every message
// stored and every message read, so a member sent N messages of 48 KiB wrote O(N²) bytes: 300 of
// them rewrote 2.2 GB. Here a message costs one file of its own size, written atomically and
// durably, and reading it costs an unlink.
//
//   inbox/0000000042-81d4e0aa6c.json   one Envelope; the number is the arrival order
//
// The inbox is also bounded (MAX_INBOX_MESSAGES, MAX_INBOX_BYTES): a member that fills it is
// refused further messages (PapoError 'inbox_full') until the agent reads, so another member's
// text cannot fill this machine's disk. A legacy inbox.json (papo 0.1) is moved in on open.
import { lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PapoError } from '../errors.js';
import { checkedEnvelope } from '../wire/frames.js';
import type { Envelope } from '../wire/messages.js';
import { readJsonFile, syncDir, writeFileDurable } from './durable-file.js';
import { linkedFileError, readNoFollowSync } from './no-follow.js';
import { INBOX_DIR, LEGACY_INBOX_FILE } from './profile-files.js';

/** Unread messages a member keeps at most; past it, new messages are refused until the agent reads. */
export const MAX_INBOX_MESSAGES = 1000;
/** Bytes of unread messages (their files) a member keeps at most. */
export const MAX_INBOX_BYTES = 8 * 1024 * 1024;

const ENTRY = /^(\d{10})-([0-9a-f]{10})\.json$/;

interface Entry {
  file: string;
  msg: Envelope;
  bytes: number;
}

/** The unread messages of one profile, oldest first. Only the holder of the profile lock writes. */
export class InboxStore {
  readonly dir: string;
  #entries: Entry[];
  #bytes: number;
  #next: number;

  private constructor(dir: string, entries: Entry[]) {
    this.dir = dir;
    this.#entries = entries;
    this.#bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
    const last = entries.at(-1);
    this.#next = last ? Number(ENTRY.exec(last.file)?.[1]) + 1 : 0;
  }

  /**
   * Opens (creating, and moving a legacy inbox.json in) the inbox of `profileDir`; with `folder`,
   * another folder of messages kept the same way (held/: review.ts).
   */
  static async open(profileDir: string, folder = INBOX_DIR): Promise<InboxStore> {
    const dir = join(profileDir, folder);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The folder itself must not be a link either: messages would be written wherever it points.
    if (lstatSync(dir).isSymbolicLink()) throw linkedFileError(dir, 'symbolic');
    const store = new InboxStore(dir, readEntries(dir));
    if (folder === INBOX_DIR) await store.#moveLegacy(join(profileDir, LEGACY_INBOX_FILE));
    return store;
  }

  get messages(): readonly Envelope[] {
    return this.#entries.map((e) => e.msg);
  }

  get count(): number {
    return this.#entries.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Stores `msg` durably; PapoError 'inbox_full' (nothing written) when it would pass a cap. */
  async add(msg: Envelope): Promise<void> {
    const text = `${JSON.stringify(msg)}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.#entries.length >= MAX_INBOX_MESSAGES || this.#bytes + bytes > MAX_INBOX_BYTES) {
      throw new PapoError(
        'inbox_full',
        `the inbox holds ${this.#entries.length} unread messages (${this.#bytes} bytes)`,
      );
    }
    const file = `${String(this.#next).padStart(10, '0')}-${msg.id}.json`;
    await writeFileDurable(join(this.dir, file), text);
    this.#next++;
    this.#entries.push({ file, msg, bytes });
    this.#bytes += bytes;
  }

  /** Removes these ids (read by the agent); the folder is synced once for all of them. */
  async remove(ids: Iterable<string>): Promise<void> {
    const drop = new Set(ids);
    const keep: Entry[] = [];
    let removed = false;
    for (const e of this.#entries) {
      if (!drop.has(e.msg.id)) {
        keep.push(e);
        continue;
      }
      try {
        unlinkSync(join(this.dir, e.file));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      this.#bytes -= e.bytes;
      removed = true;
    }
    this.#entries = keep;
    if (removed) await syncDir(this.dir);
  }

  async #moveLegacy(path: string): Promise<void> {
    const raw = await readJsonFile<unknown>(path);
    if (raw === null) return;
    const legacy = parseLegacyInbox(raw, path);
    // A crash mid-move leaves both: what is already in the folder is not added twice.
    const have = new Set(this.#entries.map((e) => e.msg.id));
    for (const msg of legacy) {
      if (have.has(msg.id)) continue;
      const text = `${JSON.stringify(msg)}\n`;
      const file = `${String(this.#next++).padStart(10, '0')}-${msg.id}.json`;
      await writeFileDurable(join(this.dir, file), text);
      this.#entries.push({ file, msg, bytes: Buffer.byteLength(text) });
      this.#bytes += Buffer.byteLength(text);
    }
    unlinkSync(path);
    await syncDir(join(this.dir, '..'));
  }
}

/** How many unread messages a profile holds, for a process that does not hold its lock. */
export function countUnread(profileDir: string): number {
  return countStored(join(profileDir, INBOX_DIR));
}

/** How many messages a folder kept by an InboxStore holds (0 when it does not exist). */
export function countStored(dir: string): number {
  try {
    return readdirSync(dir).filter((f) => ENTRY.test(f)).length;
  } catch {
    return 0;
  }
}

/** The messages of a folder kept by an InboxStore, oldest first, read without its lock ([] if none). */
export function readStoredMessages(dir: string): Envelope[] {
  try {
    return readEntries(dir).map((e) => e.msg);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

function readEntries(dir: string): Entry[] {
  const entries: Entry[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!ENTRY.test(file)) continue;
    const path = join(dir, file);
    const text = readNoFollowSync(path);
    if (text === null) continue;
    entries.push({ file, msg: parseStoredMessage(text, path), bytes: Buffer.byteLength(text) });
  }
  return entries;
}

/**
 * One message file of inbox/ or held/ (`path` names it in the error): a well-formed envelope
 * (checkedEnvelope), or PapoError 'profile_corrupt'.
 */
export function parseStoredMessage(text: string, path: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PapoError('profile_corrupt', `${path} is not valid JSON`, { cause: err });
  }
  const msg = checkedEnvelope(value);
  if (msg === null) throw new PapoError('profile_corrupt', `${path} does not hold what papo expects`);
  return msg;
}

/**
 * papo 0.1's inbox.json read back (a list of envelopes; null when absent): every entry a
 * well-formed envelope, or PapoError 'profile_corrupt' (an id names a file in inbox/).
 */
export function parseLegacyInbox(value: unknown, path: string): Envelope[] {
  const messages = Array.isArray(value) ? value.map(checkedEnvelope) : null;
  if (messages === null || messages.some((m) => m === null))
    throw new PapoError('profile_corrupt', `${path} does not hold what papo expects`);
  return messages as Envelope[];
}
