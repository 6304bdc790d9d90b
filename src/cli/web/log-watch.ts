// The profile's log followed for `papo web`: what `papo log -f` reads (readLogFrom), pushed to the
// page's event streams. fs.watch on the profile's folder says when to look at once (the log may
// not exist yet, and papo mcp appends to it); a poll every second catches what a file system's
// watch misses (network and container volumes). Nothing is shown twice or missed: each look
// reads from where the last one ended.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { readLogFrom } from '../../client/store/log-file.js';
import type { LogEntry } from '../../client/wire/messages.js';

const POLL_MS = 1000;

export interface LogWatch {
  /** Calls `listener` with each batch of new entries; returns what stops it. */
  subscribe(listener: (entries: LogEntry[]) => void): () => void;
  /** Looks at the log now (after a decision of the page, say). */
  poke(): void;
  close(): void;
}

/** Follows the log at `path` from byte `from` on. */
export function watchLog(path: string, from: number, onError: (err: unknown) => void): LogWatch {
  const listeners = new Set<(entries: LogEntry[]) => void>();
  let offset = from;
  let busy = false;
  let again = false;
  const look = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const { entries, next } = await readLogFrom(path, offset);
        offset = next;
        if (entries.length > 0) for (const l of listeners) l(entries);
      } while (again);
    } catch (err) {
      onError(err);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void look(), POLL_MS);
  timer.unref();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), (_event, name) => {
      if (name === null || name === basename(path)) void look();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    // No watch on this file system: the poll alone.
  }
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    poke: () => void look(),
    close() {
      clearInterval(timer);
      watcher?.close();
      listeners.clear();
    },
  };
}
