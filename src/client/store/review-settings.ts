// review.json (ADR 0081, 0095), the person's settings of the review gate:
//
//   {"on": true,
//    "allow": [{"name": "colega", "agent": "<node id>", "human": "<node id>"}],
//    "people": [{"name": "ana", "key": "<node id>"}],
//    "hold": ["deploy"]}
//
// written by `papo review` (the person), read by papo mcp before each message (review-gate.ts).
// A rule lets through the keys the room held for a name when the person made it (names.json), not
// whichever key holds the name when a message comes: an allowed member's agent and person, and,
// for `allow --people`, the persons the room's agents had announced. Missing: review off. A file
// that cannot be read as settings holds everything (the gate fails closed). An older papo's file
// reads as it was written, but its rules are bound to no key (a bare name in `allow`, or
// `"allow_people": true`) and so let nothing through until the person makes them again.
import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PapoError } from '../errors.js';
import { isMemberName, NODE_ID_PATTERN } from '../wire/names.js';
import { writeFileDurable } from './durable-file.js';
import { readNoFollowSync } from './no-follow.js';
import { REVIEW_FILE } from './profile-files.js';
import { compilePattern } from './review-patterns.js';

/** Patterns and allowed names kept at most (each). */
export const MAX_REVIEW_RULES = 64;

/** Persons `allow --people` binds at most (names.json holds at most 1024 names, two a member). */
export const MAX_ALLOWED_PEOPLE = 1024;

/**
 * A member whose messages pass, with the keys the room held for its name when the person allowed
 * it: its agent's and its person's. A kind without a key (the room did not know it, or an older
 * papo wrote the rule) is not let through by this rule.
 */
export interface AllowedMember {
  name: string;
  /** Node id that held "name (agent)". */
  agent?: string;
  /** Node id that held "name (human)": the person key the member's agent announced. */
  human?: string;
}

/** A person `allow --people` lets through: a name and the key that held it as a person's. */
export interface AllowedPerson {
  name: string;
  key: string;
}

export interface ReviewSettings {
  on: boolean;
  /** Members whose messages pass (their agent's and their person's), each bound to its keys. */
  allow: AllowedMember[];
  /** Persons whose `papo say` passes (`allow --people`: those the room knew then). */
  people: AllowedPerson[];
  /** Hold patterns (compilePattern): a message whose text matches one is always held. */
  hold: string[];
  /** Set when review.json could not be read: everything is held until it is fixed. */
  broken?: BrokenReason;
}

export const REVIEW_OFF: ReviewSettings = Object.freeze({
  on: false,
  allow: [],
  people: [],
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
  if (typeof v !== 'object' || v === null || typeof v.on !== 'boolean') return failClosed('not_settings');
  const allow = listOf(v.allow, MAX_REVIEW_RULES, allowedMember);
  const people = listOf(v.people, MAX_ALLOWED_PEOPLE, allowedPerson);
  const hold = listOf(v.hold, MAX_REVIEW_RULES, holdPattern);
  if (
    allow === undefined ||
    people === undefined ||
    hold === undefined ||
    // An older papo's switch, bound to no key: read, and it lets nobody through.
    typeof (v.allow_people ?? false) !== 'boolean'
  )
    return failClosed('not_settings');
  return { on: v.on, allow, people, hold };
}

/** A `hold` entry: a pattern compilePattern takes. */
function holdPattern(e: unknown): string | undefined {
  if (typeof e !== 'string') return undefined;
  try {
    compilePattern(e);
    return e;
  } catch {
    return undefined;
  }
}

/** The entries of a list field (missing: none), each read by `entry`; undefined when one is bad. */
function listOf<T>(x: unknown, max: number, entry: (e: unknown) => T | undefined): T[] | undefined {
  if (x === undefined) return [];
  if (!Array.isArray(x) || x.length > max) return undefined;
  const out: T[] = [];
  for (const e of x) {
    const read = entry(e);
    if (read === undefined) return undefined;
    out.push(read);
  }
  return out;
}

/** An `allow` entry: {name, agent?, human?}, or a bare name (an older papo's: bound to no key). */
function allowedMember(e: unknown): AllowedMember | undefined {
  if (isMemberName(e)) return { name: e };
  const o = e as Record<string, unknown> | null;
  if (typeof o !== 'object' || o === null || !isMemberName(o.name)) return undefined;
  if (!optionalNode(o.agent) || !optionalNode(o.human)) return undefined;
  return {
    name: o.name,
    ...(o.agent !== undefined ? { agent: o.agent as string } : {}),
    ...(o.human !== undefined ? { human: o.human as string } : {}),
  };
}

/** A `people` entry: {name, key}. */
function allowedPerson(e: unknown): AllowedPerson | undefined {
  const o = e as Record<string, unknown> | null;
  if (typeof o !== 'object' || o === null || !isMemberName(o.name) || !isNode(o.key)) return undefined;
  return { name: o.name, key: o.key };
}

function isNode(x: unknown): x is string {
  return typeof x === 'string' && NODE_ID_PATTERN.test(x);
}

function optionalNode(x: unknown): boolean {
  return x === undefined || isNode(x);
}

function failClosed(broken: BrokenReason): ReviewSettings {
  return { on: true, allow: [], people: [], hold: [], broken };
}

/** Writes review.json durably (0600); the running papo mcp reads it before the next message. */
export async function writeReviewSettings(profileDir: string, settings: ReviewSettings): Promise<void> {
  const file = {
    on: settings.on,
    allow: settings.allow,
    people: settings.people,
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
