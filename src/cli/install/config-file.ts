// How papo install reads and writes an agent client's configuration file (Codex's config.toml,
// Gemini CLI's settings.json, opencode.json), and checks the ones a client's own command writes in a
// project (.mcp.json, .qwen/settings.json, .gemini/settings.json): never through a link (ADR 0094).
//
// In scope project the file is in the checkout, which anyone who made the repository chose: a link
// committed there (`opencode.json -> ~/.docker/config.json`, `.gemini -> ~/.config/x`) would have
// papo, or the client it runs, copy another file's secrets into the checkout or write outside it.
// So, below the project folder, no folder and no file may be a link, and the file must be a regular
// file with one name (a hard link is another file too; a FIFO would block the read). In the other
// scopes the file is the person's own, in their home: the folders above it may be links (dotfiles
// managers link ~/.config), the file itself may not, as for a profile's files (no-follow.ts).
//
// The file is read with O_NOFOLLOW, and written as durable-file.ts writes a profile's files: a
// temporary file of a random name created O_CREAT|O_EXCL|O_NOFOLLOW in the same folder, fsynced,
// then renamed over the file; so that a client never reads half a file, a failed write leaves the
// old one, and no name planted in advance can send the write elsewhere. Every check runs before
// anything is written: a refusal leaves every file as it was.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, readFileSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isPapoError } from '../../client/errors.js';
import { writeFileDurableSync } from '../../client/store/durable-file.js';
import {
  OPEN_READ,
  openNoFollowSync,
  refuseSharedFileSync,
  sharedFileProblem,
} from '../../client/store/no-follow.js';
import type { InstallTarget } from './agent-client.js';

type Refusal = 'symbolic' | 'hard' | 'not_regular';

/** A client's configuration file as papo install read it: its text and its mode. */
export interface ConfigText {
  text: string;
  mode: number;
}

/**
 * Refuses `file` of `target`'s scope when it, or in scope project a folder between the project and
 * it, is a link, or when the file is there but is not a regular file with one name. Nothing missing
 * is an error: papo, or the client, makes it.
 */
export function checkConfigPath(file: string, target: InstallTarget): void {
  const root = target.scope === 'project' ? resolve(target.cwd) : dirname(file);
  const below = relative(root, file);
  const parts = below === '' || below.startsWith('..') || isAbsolute(below) ? [] : below.split(sep);
  let path = root;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    const st = lstatOrNull(path);
    if (st === null) return;
    if (st.isSymbolicLink()) throw refused(path, 'symbolic', target);
  }
  const st = lstatOrNull(file);
  if (st === null) return;
  if (st.isSymbolicLink()) throw refused(file, 'symbolic', target);
  const problem = sharedFileProblem(st);
  if (problem !== undefined) throw refused(file, problem, target);
}

/** The text and mode of `file`, or null when there is none; a link is refused (checkConfigPath). */
export function readConfigFile(file: string, target: InstallTarget): ConfigText | null {
  checkConfigPath(file, target);
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there since the check must not block the open; it is refused below.
    fd = openNoFollowSync(file, OPEN_READ | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw asRefusal(err, target);
  }
  try {
    refuseSharedFileSync(fd, file);
  } catch (err) {
    throw asRefusal(err, target); // refuseSharedFileSync closed fd
  }
  try {
    return { text: readFileSync(fd, 'utf8'), mode: fstatSync(fd).mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` to `file` atomically, durably and without following a link, with `mode` exactly
 * (the file's own when it was read; 0600 for a new one: it may hold a personal PAPO_HOME). Its
 * folder is made when missing.
 */
export function writeConfigFile(file: string, text: string, mode: number, target: InstallTarget): void {
  checkConfigPath(file, target);
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileDurableSync(file, text, mode);
  } catch (err) {
    throw asRefusal(err, target);
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** no-follow.ts's refusal of a link, said for papo install; anything else as it is. */
function asRefusal(err: unknown, target: InstallTarget): unknown {
  return isPapoError(err, 'profile_link') ? refused(err.detail.path, err.detail.link, target) : err;
}

function refused(path: string, how: Refusal, target: InstallTarget): Error {
  const scope = target.client === 'codex' ? '' : ` --scope ${target.scope}`;
  return new Error(
    target.t.installLinked(path, how, `papo install --client ${target.client}${scope} --print`),
  );
}
