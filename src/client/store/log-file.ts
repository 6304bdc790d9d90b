// log.jsonl: the conversation as the member saw it, one LogEntry per line (docs/files.md,
// "log.jsonl"). Lines are appended whole and fsynced; a crash can leave at most a
// torn last line, which every reader ignores and the next writer closes off.
//
// It holds every message body, so it is never opened through a link (ADR 0061): O_NOFOLLOW for
// every open, and the appender refuses a file that has another hard link.
import { closeSync, fstatSync, fsyncSync, readSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { LogEntry } from '../wire/messages.js';
import { OPEN_APPEND, OPEN_READ, openNoFollow, openNoFollowSync, refuseSharedFileSync } from './no-follow.js';

const CHUNK = 64 * 1024;

/** Appends entries to one log file. Keep one per process: it remembers whether the tail was checked. */
export class LogFile {
  readonly path: string;
  #checkedTail = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  /** Appends one line and fsyncs it before resolving (the ack of a message depends on it). */
  append(entry: LogEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const next = this.#queue.then(() => this.#write(line));
    // The caller sees its own failure through `next`; the lines after it are still written.
    this.#queue = next.catch(() => {});
    return next;
  }

  // Synchronous system calls, like the JSON files' (ADR 0056): this line is on every message's path.
  async #write(line: string): Promise<void> {
    const fd = openNoFollowSync(this.path, OPEN_APPEND, 0o600);
    refuseSharedFileSync(fd, this.path);
    try {
      let text = line;
      if (!this.#checkedTail) {
        // After a crash mid-append the file may end without '\n'; start on a fresh line so the
        // torn fragment stays one ignorable line instead of swallowing this entry.
        const { size } = fstatSync(fd);
        if (size > 0) {
          const last = Buffer.alloc(1);
          readSync(fd, last, 0, 1, size - 1);
          if (last[0] !== 0x0a) text = `\n${line}`;
        }
      }
      const bytes = Buffer.from(text, 'utf8');
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
      // Only now: an append that failed part-way may have left a torn line to close off.
      this.#checkedTail = true;
    } finally {
      closeSync(fd);
    }
  }

  readTail(n: number, end?: number): Promise<LogEntry[]> {
    return readLogTail(this.path, n, end);
  }

  readInboundIds(): Promise<Set<string>> {
    return readInboundIds(this.path);
  }
}

/**
 * The last `n` entries (oldest first), reading the file backwards in chunks so a long history
 * costs only what is shown. `end` limits the read to the first `end` bytes (papo log -f reads
 * the tail up to a size it then follows from). A missing file is an empty log.
 */
export async function readLogTail(path: string, n: number, end?: number): Promise<LogEntry[]> {
  if (n <= 0) return [];
  const handle = await openLog(path);
  if (handle === null) return [];
  try {
    const size = Math.min(end ?? Number.POSITIVE_INFINITY, (await handle.stat()).size);
    const found: LogEntry[] = []; // newest first
    let pos = size;
    // Bytes [pos, end of the last complete line) not yet split into lines.
    let pending = Buffer.alloc(0);
    let tornDropped = false;
    while (found.length < n && (pos > 0 || pending.length > 0)) {
      if (pos > 0) {
        const len = Math.min(CHUNK, pos);
        pos -= len;
        const buf = Buffer.alloc(len);
        await handle.read(buf, 0, len, pos);
        pending = Buffer.concat([buf, pending]);
      }
      if (!tornDropped) {
        // Whatever follows the file's last '\n' is a torn line: drop it with that '\n'.
        const nl = pending.lastIndexOf(0x0a);
        if (nl < 0) {
          if (pos > 0) continue;
          break;
        }
        pending = pending.subarray(0, nl);
        tornDropped = true;
      }
      while (found.length < n) {
        const nl = pending.lastIndexOf(0x0a);
        if (nl < 0) {
          if (pos > 0) break; // this line starts in an earlier chunk
          const entry = parseLine(pending);
          if (entry) found.push(entry);
          pending = Buffer.alloc(0);
          break;
        }
        const entry = parseLine(pending.subarray(nl + 1));
        if (entry) found.push(entry);
        pending = pending.subarray(0, nl);
      }
    }
    return found.reverse();
  } finally {
    await handle.close();
  }
}

/** Ids of every received message in the log, so dedupe survives a restart. */
export async function readInboundIds(path: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const handle = await openLog(path);
  if (handle === null) return ids;
  // The stream closes the handle when it ends.
  const lines = createInterface({ input: handle.createReadStream(), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    // A torn last line fails to parse and is skipped like any other unreadable line.
    const entry = parseLine(Buffer.from(line));
    if (entry?.ev === 'in') ids.add(entry.msg.id);
  }
  return ids;
}

/**
 * Whole entries appended after byte `offset`, and the offset to continue from (the start of any
 * incomplete last line). If the file shrank (replaced), reading starts again from 0.
 */
export async function readLogFrom(
  path: string,
  offset: number,
): Promise<{ entries: LogEntry[]; next: number }> {
  const handle = await openLog(path);
  if (handle === null) return { entries: [], next: 0 };
  try {
    const { size } = await handle.stat();
    const from = size < offset ? 0 : offset;
    if (size === from) return { entries: [], next: from };
    const buf = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buf, 0, buf.length, from);
    const data = buf.subarray(0, bytesRead);
    const lastNl = data.lastIndexOf(0x0a);
    if (lastNl < 0) return { entries: [], next: from };
    const entries: LogEntry[] = [];
    for (const line of data.subarray(0, lastNl).toString('utf8').split('\n')) {
      const entry = parseLine(Buffer.from(line));
      if (entry) entries.push(entry);
    }
    return { entries, next: from + lastNl + 1 };
  } finally {
    await handle.close();
  }
}

/** The log opened for reading without following a link; null when it does not exist. */
async function openLog(path: string): Promise<FileHandle | null> {
  try {
    return await openNoFollow(path, OPEN_READ);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** One line to an entry, or null for a blank, torn or foreign line. */
function parseLine(bytes: Buffer): LogEntry | null {
  return parseLogLine(bytes.toString('utf8'));
}

/**
 * One line of log.jsonl to an entry, or null for a blank, torn or foreign line (fuzzed in
 * tests/fuzz/parser-targets.ts). What it returns has the fields of its kind with their types, so
 * `papo log` and the history tool can format it: a hand-edited line whose text is an object (a
 * `toString` that is not a function) would otherwise throw while formatting.
 */
export function parseLogLine(line: string): LogEntry | null {
  const text = line.trim();
  if (text === '') return null;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const str = (x: unknown) => typeof x === 'string';
  const kind = (x: unknown) => x === 'agent' || x === 'human';
  const time = (x: unknown) => typeof x === 'number';
  switch (v.ev) {
    case 'in':
    case 'out': {
      const m = v.msg as Record<string, unknown> | null;
      const ok =
        typeof m === 'object' &&
        m !== null &&
        str(m.id) &&
        str(m.from) &&
        str(m.node) &&
        kind(m.kind) &&
        time(m.ts) &&
        str(m.body) &&
        (m.to === undefined || str(m.to)) &&
        (m.reply_to === undefined || str(m.reply_to)) &&
        (v.held === undefined || v.held === true);
      return ok ? (v as unknown as LogEntry) : null;
    }
    case 'delivered':
      return str(v.id) && str(v.by) && time(v.ts) ? (v as unknown as LogEntry) : null;
    case 'impostor':
      return str(v.name) && kind(v.kind) && str(v.node) && time(v.ts) ? (v as unknown as LogEntry) : null;
    case 'review':
      return str(v.id) &&
        (v.decision === 'approved' || v.decision === 'rejected') &&
        time(v.ts) &&
        (v.reason === undefined || str(v.reason))
        ? (v as unknown as LogEntry)
        : null;
    default:
      return null;
  }
}
