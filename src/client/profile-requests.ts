// Requests a CLI command leaves for the papo mcp that holds a profile's lock (`papo forget`,
// `papo review`): the running member owns the profile's files, so a command that must change them
// while it runs writes a small request file (<kind>-<8 hex>.json, 0600, durably) in the profile
// instead; the member takes its requests every second, and at its start (a request left while
// nothing ran), and deletes each one once applied. A command waits for its file to go: gone means
// applied.
import { randomBytes } from 'node:crypto';
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonFile, writeFileDurable } from './durable-file.js';
import { PapoError } from './errors.js';

/** How often a running member looks for requests. */
export const REQUEST_POLL_MS = 1_000;

export type RequestKind = 'forget' | 'review';

function pattern(kind: RequestKind): RegExp {
  return new RegExp(`^${kind}-[0-9a-f]{8}\\.json$`);
}

/** Leaves a request for the running member; returns the request file's path. */
export async function leaveRequest(dir: string, kind: RequestKind, body: object): Promise<string> {
  const path = join(dir, `${kind}-${randomBytes(4).toString('hex')}.json`);
  await writeFileDurable(path, `${JSON.stringify(body)}\n`);
  return path;
}

/**
 * Applies the pending requests of one kind, oldest file name first, and deletes each file once
 * `apply` is done. `apply` gets the parsed JSON and returns false for a request it does not
 * understand (logged, then removed: never retried forever).
 */
export async function takeRequests(
  dir: string,
  kind: RequestKind,
  apply: (request: unknown) => Promise<boolean>,
  log: (line: string) => void = () => {},
): Promise<void> {
  const request = pattern(kind);
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => request.test(f)).sort();
  } catch {
    return;
  }
  for (const file of files) {
    const path = join(dir, file);
    try {
      if (!(await apply(await readJsonFile<unknown>(path)))) log(`ignoring ${file}: not a ${kind} request`);
    } catch (err) {
      // A link or unreadable JSON is removed all the same; anything else (a disk error) is kept
      // and tried again at the next look.
      if (!(err instanceof PapoError)) {
        log(`could not apply ${file}: ${(err as Error).message}`);
        continue;
      }
      log(`ignoring ${file}: ${err.message}`);
    }
    await unlink(path).catch(() => {});
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
