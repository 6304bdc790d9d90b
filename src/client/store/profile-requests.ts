// Requests a CLI command leaves for the papo mcp that holds a profile's lock (`papo forget`,
// `papo review`): the running member owns the profile's files, so a command that must change them
// while it runs writes a small request file (<kind>-<13-digit ms>-<8 hex>.json, 0600, durably) in
// the profile instead; the member takes its requests every second, and at its start (a request
// left while nothing ran), oldest first, and deletes each one once applied. A request that cannot
// be applied now (the member is closing, a disk error) stays for the next look; one that cannot be
// read or understood is deleted. A command waits for its file to go: gone means applied.
import { randomBytes } from 'node:crypto';
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../errors.js';
import type { LogTarget } from '../log.js';
import { readJsonFile, writeFileDurable } from './durable-file.js';

/** How often a running member looks for requests. */
export const REQUEST_POLL_MS = 1_000;

export type RequestKind = 'forget' | 'review';

function pattern(kind: RequestKind): RegExp {
  return new RegExp(`^${kind}-(?:\\d{13}-)?[0-9a-f]{8}\\.json$`);
}

/** Leaves a request for the running member; returns the request file's path. */
export async function leaveRequest(dir: string, kind: RequestKind, body: object): Promise<string> {
  // The time first, so the names sort in the order the requests were made.
  const made = String(Date.now()).padStart(13, '0');
  const path = join(dir, `${kind}-${made}-${randomBytes(4).toString('hex')}.json`);
  await writeFileDurable(path, `${JSON.stringify(body)}\n`);
  return path;
}

/**
 * The names in the profile folder, read once per look and shared by every kind the look takes;
 * undefined when the folder cannot be read (the look is skipped).
 */
export async function listRequests(dir: string): Promise<readonly string[] | undefined> {
  return readdir(dir).catch(() => undefined);
}

/**
 * Applies the pending requests of one kind, oldest file name first, and deletes each file once
 * `apply` is done. `apply` gets the parsed JSON and returns false for a request it does not
 * understand (logged, then removed: never retried forever). `names`: the folder as this look
 * listed it (listRequests); a request written after it waits for the next look.
 */
export async function takeRequests(
  dir: string,
  kind: RequestKind,
  apply: (request: unknown) => Promise<boolean>,
  log: LogTarget = () => {},
  names?: readonly string[],
): Promise<void> {
  const request = pattern(kind);
  const listed = names ?? (await listRequests(dir));
  if (listed === undefined) return;
  const files = listed.filter((f) => request.test(f)).sort();
  for (const file of files) {
    const path = join(dir, file);
    let request: unknown;
    try {
      request = await readJsonFile<unknown>(path);
    } catch (err) {
      // A link or unreadable JSON: removed, never followed nor retried forever.
      log(`ignoring ${file}: ${messageOf(err)}`);
      await unlink(path).catch(() => {}); // still there: the next look says so again
      continue;
    }
    try {
      if (!(await apply(request))) log(`ignoring ${file}: not a ${kind} request`);
    } catch (err) {
      // Not applied (the member is closing, a disk error): kept, and tried again at the next look
      // (at the latest when papo mcp starts again). The ones after it wait, to keep the order.
      log(`could not apply ${file} yet: ${messageOf(err)}`);
      return;
    }
    await unlink(path).catch((err: unknown) => log(`could not remove ${file}: ${messageOf(err)}`));
  }
}

/** Whether a request file is still there (the CLI waits for the member to take it). */
export async function requestPending(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Waits up to `ms` for the running member to take the request; true when it did. */
export async function requestTaken(path: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && (await requestPending(path))) await new Promise((r) => setTimeout(r, 100));
  return !(await requestPending(path));
}
