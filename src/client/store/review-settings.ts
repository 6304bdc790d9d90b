// review.json (ADR 0081), the person's settings of the review gate:
//
//   {"on": true, "allow": ["colega"], "allow_people": false, "hold": ["deploy"]}
//
// written by `papo review` (the person), read by papo mcp before each message (review-gate.ts).
// Missing: review off. A file that cannot be read as settings holds everything (the gate fails
// closed).
import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PapoError } from '../errors.js';
import { isMemberName } from '../wire/names.js';
import { writeFileDurable } from './durable-file.js';
import { readNoFollowSync } from './no-follow.js';
import { REVIEW_FILE } from './profile-files.js';
import { compilePattern } from './review-patterns.js';

/** Patterns and allowed names kept at most (each). */
export const MAX_REVIEW_RULES = 64;

export interface ReviewSettings {
  on: boolean;
  /** Member names whose messages pass (their agent's and their person's). */
  allow: string[];
  /** Messages from people (`papo say`, sender_kind "human") pass. */
  allowPeople: boolean;
  /** Hold patterns (compilePattern): a message whose text matches one is always held. */
  hold: string[];
  /** Set when review.json could not be read: everything is held until it is fixed. */
  broken?: BrokenReason;
}

export const REVIEW_OFF: ReviewSettings = Object.freeze({
  on: false,
  allow: [],
  allowPeople: false,
  hold: [],
}) as ReviewSettings;

/** Why review.json is not read as written (the gate then holds everything). */
export type BrokenReason = 'unreadable' | 'link' | 'not_json' | 'not_settings';

/** Reads review.json (never through a link). Missing: review off. Unreadable: everything held. */
export function readReviewSettings(profileDir: string): ReviewSettings {
  const path = join(profileDir, REVIEW_FILE);
  let text: string | null;
  try {
    text = readNoFollowSync(path);
  } catch (err) {
    return failClosed(err instanceof PapoError && err.code === 'profile_link' ? 'link' : 'unreadable');
  }
  if (text === null) return REVIEW_OFF;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failClosed('not_json');
  }
  const v = value as Record<string, unknown> | null;
  const names = (x: unknown) => Array.isArray(x) && x.length <= MAX_REVIEW_RULES && x.every(isMemberName);
  const patterns = (x: unknown) =>
    Array.isArray(x) &&
    x.length <= MAX_REVIEW_RULES &&
    x.every((p) => {
      try {
        return typeof p === 'string' && compilePattern(p) !== undefined;
      } catch {
        return false;
      }
    });
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.on !== 'boolean' ||
    !names(v.allow ?? []) ||
    typeof (v.allow_people ?? false) !== 'boolean' ||
    !patterns(v.hold ?? [])
  )
    return failClosed('not_settings');
  return {
    on: v.on,
    allow: (v.allow as string[] | undefined) ?? [],
    allowPeople: (v.allow_people as boolean | undefined) ?? false,
    hold: (v.hold as string[] | undefined) ?? [],
  };
}

function failClosed(broken: BrokenReason): ReviewSettings {
  return { on: true, allow: [], allowPeople: false, hold: [], broken };
}

/** Writes review.json durably (0600); the running papo mcp reads it before the next message. */
export async function writeReviewSettings(profileDir: string, settings: ReviewSettings): Promise<void> {
  const file = {
    on: settings.on,
    allow: settings.allow,
    allow_people: settings.allowPeople,
    hold: settings.hold,
  };
  const path = join(profileDir, REVIEW_FILE);
  // A link where review.json should be (the gate holds everything meanwhile) is replaced, never
  // followed: the person's command is what puts a real file there.
  try {
    if (lstatSync(path).isSymbolicLink()) unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await writeFileDurable(path, `${JSON.stringify(file, null, 2)}\n`);
}
