// The review gate (ADR 0081): a person who turns review on sees what other members write before
// their agent does. The gate sits after storing and before the agent: a message is stored, logged
// and acknowledged exactly as without it (the sender is not left waiting, delivery rules do not
// change), but a held one goes to held/ instead of inbox/, so it is neither pushed nor returned by
// `wait`/`inbox`, until the person approves it (it moves to the inbox, and is pushed) or rejects it
// (it leaves held/ and never reaches the agent). Both are written to the log.
//
//   review.json   {"on": true, "allow": ["colega"], "allow_people": false, "hold": ["deploy"]}
//                 written by `papo review` (the person), read by papo mcp before each message
//   held/         held messages, one file each (inbox-store.ts), written by papo mcp
//   review-<8 hex>.json   a decision left for the running papo mcp (profile-requests.ts)
//
// The rules, while review is on: a message matching a `hold` pattern is held; otherwise one from
// an allowed member (by name, agent or its person) or, with allow_people, from any person passes;
// everything else is held. With review off nothing new is held, and what is held stays held until
// decided. A review.json that cannot be read holds everything (the gate fails closed).
import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PapoError } from '../errors.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import { isMemberName, MESSAGE_ID_PATTERN, sameName } from '../wire/names.js';
import { writeFileDurable } from './durable-file.js';
import { countStored, readStoredMessages } from './inbox-store.js';
import { readNoFollowSync } from './no-follow.js';
import { HELD_DIR, REVIEW_FILE } from './profile-files.js';
import { leaveRequest, takeRequests } from './profile-requests.js';

/** Patterns and allowed names kept at most (each). */
export const MAX_REVIEW_RULES = 64;
/** Longest hold pattern, in characters. */
export const MAX_PATTERN_CHARS = 200;

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

/**
 * A hold pattern as papo matches it: text that must appear in the message, in any letter case,
 * where a run of spaces matches any run of white space and `*` stands for any text in between
 * (`rm -rf`, `curl * | sh`, `deploy*production`). Not a regular expression: the text matched is a
 * colleague's, and JavaScript's backtracking would let them stall papo mcp on a pattern of the
 * person's (the 2026-12-02 review measured seconds to a minute for (a|a)+$ or .*deploy.*prod).
 * Each piece between stars is found with indexOf, the leftmost after the previous one, which is
 * exact for such patterns: the cost is linear in the text.
 */
export interface HoldPattern {
  pieces: string[];
}

/** The pattern as papo uses it; PapoError 'invalid_pattern' when it is empty, only stars, or too long. */
export function compilePattern(pattern: string): HoldPattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new PapoError('invalid_pattern', 'too_long', { detail: { problem: 'too_long' } });
  }
  const pieces = pattern
    .split('*')
    .map((p) => foldText(p))
    .filter((p) => p !== '' && p !== ' ');
  if (pieces.length === 0) throw new PapoError('invalid_pattern', 'empty', { detail: { problem: 'empty' } });
  return { pieces };
}

/** Whether `text` holds the pattern's pieces in order. */
export function matchesPattern(pattern: HoldPattern, text: string): boolean {
  const folded = foldText(text);
  let from = 0;
  for (const piece of pattern.pieces) {
    const at = folded.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

/** Lower case, every run of white space one space: how patterns and texts are compared. */
function foldText(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, ' ');
}

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

/** Whether the gate holds `msg` under these settings (see the rules at the top). */
export function holds(settings: ReviewSettings, msg: Envelope): boolean {
  if (!settings.on) return false;
  if (settings.broken !== undefined) return true;
  if (settings.hold.some((p) => matchesPattern(compilePattern(p), msg.body))) return true;
  if (msg.kind === 'human' && settings.allowPeople) return false;
  return !settings.allow.some((name) => sameName(name, msg.from));
}

/**
 * The settings of one profile as the running member reads them: review.json is read again only
 * when it changed (its inode, size or time), so a `papo review on` applies to the next message.
 */
export class ReviewGate {
  #path: string;
  #dir: string;
  #stamp = '';
  #settings: ReviewSettings = REVIEW_OFF;
  #log: (line: string) => void;

  constructor(profileDir: string, log: (line: string) => void = () => {}) {
    this.#dir = profileDir;
    this.#path = join(profileDir, REVIEW_FILE);
    this.#log = log;
  }

  settings(): ReviewSettings {
    let stamp: string;
    try {
      const s = lstatSync(this.#path);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}:${s.isSymbolicLink()}`;
    } catch {
      stamp = 'missing';
    }
    if (stamp !== this.#stamp) {
      this.#stamp = stamp;
      this.#settings = readReviewSettings(this.#dir);
      if (this.#settings.broken !== undefined)
        this.#log(
          `review: ${this.#path} is not usable (${this.#settings.broken}); every message is held until it is fixed`,
        );
    }
    return this.#settings;
  }

  /** Review is on: the member's hello says so, and the agent's `status`. */
  reviewing(): boolean {
    return this.settings().on;
  }

  holds(msg: Envelope): boolean {
    return holds(this.settings(), msg);
  }
}

// ---- decisions -----------------------------------------------------------------------------

/** What the person decided: approve some ids (or every held one), reject some, with a reason. */
export interface ReviewDecision {
  approve: string[] | 'all';
  reject: string[];
  /** Told to the sender by `papo review reject --reason` (kept in the log). */
  reason?: string;
}

export interface DecisionOutcome {
  approved: Envelope[];
  rejected: Envelope[];
  /** Ids that are not held (decided already, or never held). */
  unknown: string[];
  /** Approved, but the agent's inbox is full: they stay held (approve again once it reads). */
  full: Envelope[];
}

/** The files a decision changes (the member's state, under its lock). */
export interface HeldState {
  readonly held: readonly Envelope[];
  readonly inbox: readonly Envelope[];
  addToInbox(msg: Envelope): Promise<void>;
  removeFromHeld(ids: Iterable<string>): Promise<void>;
  appendLog(entry: LogEntry): Promise<void>;
}

/** A decision as a request file carries it; null when it is not one. */
export function parseDecision(value: unknown): ReviewDecision | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const ids = (x: unknown) =>
    Array.isArray(x) &&
    x.length <= 10_000 &&
    x.every((id) => typeof id === 'string' && MESSAGE_ID_PATTERN.test(id));
  const approve = v.approve === 'all' ? 'all' : ids(v.approve ?? []) ? ((v.approve ?? []) as string[]) : null;
  if (approve === null || !ids(v.reject ?? [])) return null;
  if (v.reason !== undefined && typeof v.reason !== 'string') return null;
  return {
    approve,
    reject: (v.reject ?? []) as string[],
    ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
  };
}

/**
 * Applies a decision. The order makes a crash at any point safe: an approved message is in the
 * inbox before it leaves held/ (a copy in both is dropped from held/ at the next start:
 * dropDecided), and a rejected one is logged before it leaves held/. Nothing held is released
 * unless approved. Run it under the profile lock (the member's serial queue, or the CLI's lock).
 */
export async function applyDecision(
  state: HeldState,
  decision: ReviewDecision,
  now: number,
): Promise<DecisionOutcome> {
  const outcome: DecisionOutcome = { approved: [], rejected: [], unknown: [], full: [] };
  const byId = new Map(state.held.map((m) => [m.id, m]));
  const rejecting = new Set(decision.reject);
  // An id both approved and rejected is rejected: what is in doubt stays away from the agent.
  const approving = (decision.approve === 'all' ? [...byId.keys()] : decision.approve).filter(
    (id) => !rejecting.has(id),
  );
  for (const id of new Set(approving)) {
    const msg = byId.get(id);
    if (msg === undefined) {
      outcome.unknown.push(id);
      continue;
    }
    if (!state.inbox.some((m) => m.id === id)) {
      try {
        await state.addToInbox(msg);
      } catch (err) {
        if (!(err instanceof PapoError && err.code === 'inbox_full')) throw err;
        outcome.full.push(msg);
        continue;
      }
    }
    await state.appendLog({ ev: 'review', id, decision: 'approved', ts: now });
    await state.removeFromHeld([id]);
    outcome.approved.push(msg);
  }
  for (const id of rejecting) {
    const msg = byId.get(id);
    if (msg === undefined) {
      outcome.unknown.push(id);
      continue;
    }
    await state.appendLog({
      ev: 'review',
      id,
      decision: 'rejected',
      ts: now,
      ...(decision.reason ? { reason: decision.reason } : {}),
    });
    await state.removeFromHeld([id]);
    outcome.rejected.push(msg);
  }
  return outcome;
}

/**
 * The decisions `papo review` left for the running member (profile-requests.ts), applied in order.
 * `names`: the folder's listing of this look, when the caller has one (listRequests).
 */
export function takeReviewRequests(
  dir: string,
  member: { decide(decision: ReviewDecision): Promise<DecisionOutcome> },
  log: (line: string) => void,
  names?: readonly string[],
): Promise<void> {
  return takeRequests(
    dir,
    'review',
    async (request) => {
      const decision = parseDecision(request);
      if (decision === null) return false;
      const { approved, rejected, unknown, full } = await member.decide(decision);
      log(
        `review: ${approved.length} approved, ${rejected.length} rejected, ${full.length} kept (inbox full), ${unknown.length} not held`,
      );
      return true;
    },
    log,
    names,
  );
}

/** Leaves a decision for the running member; returns the request file's path. */
export function requestDecision(dir: string, decision: ReviewDecision): Promise<string> {
  return leaveRequest(dir, 'review', decision);
}

/**
 * At start, what a crash mid-decision left (applyDecision's order): a message both held and unread
 * was being approved (the inbox is written first): its approval is logged if the log missed it,
 * and it leaves held/; a held message the log says was rejected leaves held/. `decided`: the
 * decisions in the log (decidedIn).
 */
export async function dropDecided(
  state: HeldState,
  decided: ReadonlyMap<string, 'approved' | 'rejected'>,
  now: number,
): Promise<void> {
  const unread = new Set(state.inbox.map((m) => m.id));
  const drop: string[] = [];
  for (const m of state.held) {
    if (unread.has(m.id)) {
      if (decided.get(m.id) !== 'approved')
        await state.appendLog({ ev: 'review', id: m.id, decision: 'approved', ts: now });
      drop.push(m.id);
    } else if (decided.get(m.id) === 'rejected') drop.push(m.id);
  }
  if (drop.length > 0) await state.removeFromHeld(drop);
}

/** The ids the log holds a decision for, among its last `entries` (the decisions of this session). */
export function decidedIn(entries: readonly LogEntry[]): Map<string, 'approved' | 'rejected'> {
  const decided = new Map<string, 'approved' | 'rejected'>();
  for (const e of entries) if (e.ev === 'review') decided.set(e.id, e.decision);
  return decided;
}

/** The held messages of a profile, oldest first, for a process that does not hold its lock. */
export function readHeld(profileDir: string): Envelope[] {
  return readStoredMessages(join(profileDir, HELD_DIR));
}

/** How many messages a profile holds for review (papo status, without the lock). */
export function countHeld(profileDir: string): number {
  return countStored(join(profileDir, HELD_DIR));
}
