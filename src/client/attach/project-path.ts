// The sender's check of a path an agent gives with `send`'s files (docs/decisions/0121-sealed-
// attachments.md): a regular file inside the project (the folder papo mcp runs in), under the cap.
// A link, a folder, a device, a fifo, a socket or a path that leads outside the project once links
// above it are resolved is refused with a PapoError('attach_refused') whose detail says which, and
// nothing is opened: only lstat and realpath look at it. What the check saw (device, inode, size,
// time) goes with it, so the copy (store.ts) refuses a file swapped or changed after it.
import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { type AttachProblem, PapoError } from '../errors.js';

/** A file the check let through, and what it saw of it. */
export interface CheckedFile {
  /** The path as the agent gave it. */
  given: string;
  /** Its real path (no link in it). */
  path: string;
  /** Its own name, as the file system spells it (safeName makes the manifest's from it). */
  name: string;
  size: number;
  dev: number;
  ino: number;
  mtimeMs: number;
}

/** The refusal for `problem` about `path`, its English message. */
export function attachRefused(problem: AttachProblem): PapoError<'attach_refused'> {
  return new PapoError('attach_refused', attachMessage(problem), { detail: problem });
}

/** What an agent reads when papo will not send a file. */
export function attachMessage(p: AttachProblem): string {
  switch (p.problem) {
    case 'not_found':
      return `${p.path}: no such file`;
    case 'link':
      return `${p.path} is a symbolic link; papo sends files, not links: give the file it points to, if it is in the project`;
    case 'folder':
      return `${p.path} is a folder; papo sends files one by one`;
    case 'not_file':
      return `${p.path} is not a regular file (a device, a pipe or a socket); papo sends regular files only`;
    case 'outside':
      return `${p.path} is outside the project folder; papo sends only files inside the folder it runs in`;
    case 'unreadable':
      return `${p.path} cannot be read (permission denied)`;
    case 'too_large':
      return `${p.path} is ${p.size} bytes, more than the ${p.limit} bytes a file may be (PAPO_ATTACH_MAX_FILE_MIB)`;
    case 'changed':
      return `${p.path} changed while papo was reading it; send it again once it is written`;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Checks `given` (absolute, or relative to `project`) as a file to send: a regular file, not a
 * link, inside `project` after realpath, at most `maxBytes`. Opens nothing.
 */
export async function checkProjectFile(
  project: string,
  given: string,
  maxBytes: number,
): Promise<CheckedFile> {
  const path = given;
  if (typeof given !== 'string' || given.length === 0 || given.includes('\0'))
    throw attachRefused({ problem: 'not_found', path: String(given).replaceAll('\0', '\\0') });
  const absolute = resolve(project, given);
  let st: Stats;
  try {
    st = await lstat(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw attachRefused({ problem: 'unreadable', path });
    throw attachRefused({ problem: 'not_found', path });
  }
  if (st.isSymbolicLink()) throw attachRefused({ problem: 'link', path });
  if (st.isDirectory()) throw attachRefused({ problem: 'folder', path });
  if (!st.isFile()) throw attachRefused({ problem: 'not_file', path });
  // A folder above the file may be a link that leads out of the project: compare real paths.
  let real: string;
  let realProject: string;
  try {
    [real, realProject] = await Promise.all([realpath(absolute), realpath(project)]);
  } catch {
    throw attachRefused({ problem: 'not_found', path });
  }
  if (!isInside(realProject, real)) throw attachRefused({ problem: 'outside', path });
  if (st.size > maxBytes) throw attachRefused({ problem: 'too_large', path, size: st.size, limit: maxBytes });
  return {
    given,
    path: real,
    name: basename(real),
    size: st.size,
    dev: st.dev,
    ino: st.ino,
    mtimeMs: st.mtimeMs,
  };
}
