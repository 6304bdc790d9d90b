// papo review: the person decides what reaches their agent (ADR 0081; the gate: src/client/store/review.ts).
//   papo review                         the state, the rules and the held messages, with their text
//   papo review on | off
//   papo review approve ID... | --all   held messages become unread for the agent (and are pushed)
//   papo review reject ID... [--reason TEXT]   never reach it; with a reason, the sender is told
//   papo review allow NAME | --people [--remove]   let a member, or every person, through
//   papo review hold PATTERN [--remove]  always hold messages whose text matches
//   papo review --watch                 one key per held message, as they arrive
// A decision goes to the papo mcp that holds the profile's lock, or is applied here when none runs
// (src/client/store/review-decide.ts). review.json is the person's, written here and read by papo mcp.
import type { Command } from 'commander';
import { isPapoError, PapoError } from '../../client/errors.js';
import { shortId } from '../../client/log.js';
import {
  memberRule,
  peopleRule,
  type RoomKeys,
  roomKeys,
  ruleMoved,
} from '../../client/room/review-binding.js';
import { formatLocalTime } from '../../client/store/log-format.js';
import { openProfile, type Profile } from '../../client/store/profile-store.js';
import {
  type AllowedMember,
  compilePattern,
  MAX_ALLOWED_PEOPLE,
  MAX_REVIEW_RULES,
  type ReviewDecision,
  type ReviewSettings,
  readHeld,
  readReviewSettings,
  readUnread,
  writeReviewSettings,
} from '../../client/store/review.js';
import { indentFollowingLines, inertText } from '../../client/wire/inert-text.js';
import type { Envelope } from '../../client/wire/messages.js';
import { sameName, validateMemberName } from '../../client/wire/names.js';
import { checkedReason, type DecisionReport, decideAndTell } from '../actions/review-decision.js';
import { type CliContext, checkedProfile, home, lang, reportError } from '../context.js';
import { type AllowedView, type ReviewTexts, reviewTexts } from '../review-texts.js';

/** Shortest id prefix a person may type. */
const MIN_ID_PREFIX = 4;
/** Unread messages `review on` lists one by one; the rest are counted. */
const MAX_UNREAD_LISTED = 20;

interface ReviewOptions {
  all?: boolean;
  reason?: string;
  people?: boolean;
  remove?: boolean;
  watch?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  const rt = reviewTexts(lang(ctx));
  program
    .command('review')
    .description(rt.help)
    .argument('[action]', rt.actionHelp)
    .argument('[args...]', rt.argsHelp)
    .option('--all', rt.allHelp)
    .option('--reason <text>', rt.reasonHelp)
    .option('--people', rt.peopleHelp)
    .option('--remove', rt.removeHelp)
    .option('--watch', rt.watchHelp)
    .action(async (action: string | undefined, args: string[], opts: ReviewOptions) => {
      const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
      const dir = profile.dir;
      if (opts.reason !== undefined && action !== 'reject') throw new RangeError(rt.noReasonWithApprove);
      switch (action) {
        case undefined:
          if (opts.watch) return watch(ctx, dir, rt);
          return show(dir, rt);
        case 'on':
        case 'off':
          return turn(dir, action === 'on', rt);
        case 'approve':
        case 'reject': {
          const held = readHeld(dir);
          let ids: string[];
          if (action === 'approve' && opts.all) {
            if (args.length > 0) throw new RangeError(rt.allWithIds);
            ids = held.map((m) => m.id);
            if (ids.length === 0) return say(rt.noneHeld);
          } else {
            if (args.length === 0) throw new RangeError(rt.needIds(action));
            ids = args.map((arg) => resolveId(arg, held, rt));
          }
          const reason = checkedReason(rt, opts.reason);
          const decision: ReviewDecision =
            action === 'approve'
              ? { approve: ids, reject: [] }
              : { approve: [], reject: ids, ...(reason ? { reason } : {}) };
          await decideAndTell(ctx, rt, dir, decision, held, printed);
          return;
        }
        case 'allow':
          return allow(profile, args, opts, rt);
        case 'hold':
          return hold(dir, args, opts, rt);
        default:
          throw new PapoError('usage', rt.unknownAction(action));
      }
    });
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A decision's lines as the command prints them: what became of each message on stdout, the rest on stderr. */
const printed: DecisionReport = {
  line: say,
  note: (line) => process.stderr.write(`${line}\n`),
};

// ---- the state ------------------------------------------------------------------------------

async function show(dir: string, rt: ReviewTexts): Promise<void> {
  const settings = readReviewSettings(dir);
  say(rt.state(settings.on));
  if (settings.broken !== undefined) say(rt.broken(settings.broken));
  else if (settings.on) {
    // What each rule is bound to, and whether the name is another key's now (papo forget).
    const keys = await roomKeys(dir).catch(() => ({ holder: () => undefined, agents: [] }));
    say(
      rt.allowed(
        settings.allow.map((m) => allowedView(m, keys)),
        settings.people.map((p) => p.name),
      ),
    );
    say(rt.alwaysHeld(settings.hold));
  }
  const held = readHeld(dir);
  say('');
  if (held.length === 0) {
    say(rt.noneHeld);
    return;
  }
  say(rt.heldHeader(held.length));
  for (const m of held) say(`\n${describe(m, rt)}`);
}

/** An allow rule as `papo review` shows it: the keys it lets through, short. */
function allowedView(m: AllowedMember, keys: RoomKeys): AllowedView {
  return {
    name: m.name,
    ...(m.agent !== undefined ? { agent: shortId(m.agent) } : {}),
    ...(m.human !== undefined ? { human: shortId(m.human) } : {}),
    moved: ruleMoved(keys, m),
  };
}

/** A held message as the person reads it: who, when, how long, and its text made inert. */
function describe(m: Envelope, rt: ReviewTexts): string {
  const body = indentFollowingLines(`    ${inertText(m.body)}`).replaceAll('\n  ', '\n    ');
  // Room text: escapes for control and invisible characters (ADR 0059), every line indented.
  return `${headline(m, rt)}\n${body}`;
}

/** A message's header line: id, sender, time and size (the sender's name made inert). */
function headline(m: Envelope, rt: ReviewTexts): string {
  const bytes = Buffer.byteLength(m.body, 'utf8');
  const size = bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
  const head = rt.heldLine({
    id: m.id,
    from: m.from,
    kind: m.kind,
    when: formatLocalTime(m.ts),
    size,
    ...(m.reply_to ? { replyTo: m.reply_to } : {}),
  });
  return inertText(head, 'line');
}

// ---- settings -------------------------------------------------------------------------------

/** The settings to change: a broken review.json is replaced, starting from review on. */
function current(dir: string): ReviewSettings {
  const s = readReviewSettings(dir);
  return s.broken === undefined ? { ...s } : { on: true, allow: [], people: [], hold: [] };
}

async function turn(dir: string, on: boolean, rt: ReviewTexts): Promise<void> {
  const before = readReviewSettings(dir);
  const held = readHeld(dir).length;
  if (before.broken === undefined && before.on === on) return say(on ? rt.alreadyOn : rt.alreadyOff);
  await writeReviewSettings(dir, { ...current(dir), on });
  if (!on) return say(rt.turnedOff(held));
  say(rt.turnedOn(held));
  // What came before is in the agent's inbox, unreviewed: review on does not take it back (the
  // agent may have been shown it already: ADR 0095), but the person should know. Read after
  // review.json was written, so a message that came meanwhile is either listed here or held.
  const unread = readUnread(dir);
  if (unread.length === 0) return;
  say(rt.unreadBefore(unread.length));
  for (const m of unread.slice(0, MAX_UNREAD_LISTED)) say(`  ${headline(m, rt)}`);
  if (unread.length > MAX_UNREAD_LISTED) say(rt.unreadMore(unread.length - MAX_UNREAD_LISTED));
}

async function allow(profile: Profile, args: string[], opts: ReviewOptions, rt: ReviewTexts): Promise<void> {
  const dir = profile.dir;
  const s = current(dir);
  if (opts.people) {
    if (args.length > 0) throw new RangeError(rt.allowNeedsName);
    if (opts.remove) {
      if (s.people.length === 0) return say(rt.allowMissing(rt.people));
      s.people = [];
      await writeReviewSettings(dir, s);
      return say(rt.allowRemoved(rt.people));
    }
    // The persons the room's agents announced, as they are now: one who joins later is not
    // among them (ADR 0095).
    const people = peopleRule(await roomKeys(dir), profile.name);
    if (people.length === 0) throw new PapoError('unknown_member', rt.noPeopleKnown);
    if (people.length > MAX_ALLOWED_PEOPLE) throw new RangeError(rt.tooManyRules(MAX_ALLOWED_PEOPLE));
    s.people = people;
    await writeReviewSettings(dir, s);
    return say(rt.peopleAdded(people.map((p) => p.name)));
  }
  if (args.length !== 1) throw new RangeError(rt.allowNeedsName);
  const name = validateMemberName(args[0] as string);
  const has = s.allow.some((m) => sameName(m.name, name));
  if (opts.remove) {
    if (!has) return say(rt.allowMissing(name));
    s.allow = s.allow.filter((m) => !sameName(m.name, name));
    await writeReviewSettings(dir, s);
    return say(rt.allowRemoved(name));
  }
  // Bound to the keys that hold the name now: another key claiming it later is not let through.
  const keys = await roomKeys(dir);
  const rule = memberRule(keys, name);
  if (rule === undefined) throw new PapoError('unknown_member', rt.notSeen(name));
  if (!has && s.allow.length >= MAX_REVIEW_RULES) throw new RangeError(rt.tooManyRules(MAX_REVIEW_RULES));
  // Allowing a name again binds it to the keys the room holds for it now.
  s.allow = [...s.allow.filter((m) => !sameName(m.name, name)), rule];
  await writeReviewSettings(dir, s);
  say(rt.allowAdded(name, allowedView(rule, keys)));
}

async function hold(dir: string, args: string[], opts: ReviewOptions, rt: ReviewTexts): Promise<void> {
  if (args.length === 0) throw new RangeError(rt.holdNeedsPattern);
  // A pattern with spaces may come unquoted: its words are joined back.
  const pattern = args.join(' ');
  const s = current(dir);
  if (opts.remove) {
    if (!s.hold.includes(pattern)) return say(rt.holdMissing(pattern));
    s.hold = s.hold.filter((p) => p !== pattern);
    await writeReviewSettings(dir, s);
    return say(rt.holdRemoved(pattern));
  }
  try {
    compilePattern(pattern);
  } catch (err) {
    if (!isPapoError(err, 'invalid_pattern')) throw err;
    throw new RangeError(rt.badPattern(pattern, err.detail.problem === 'too_long'));
  }
  if (!s.hold.includes(pattern)) {
    if (s.hold.length >= MAX_REVIEW_RULES) throw new RangeError(rt.tooManyRules(MAX_REVIEW_RULES));
    s.hold.push(pattern);
  }
  await writeReviewSettings(dir, s);
  say(rt.holdAdded(pattern));
}

// ---- decisions ------------------------------------------------------------------------------

/** A held message's id from what the person typed: the whole id, or its first characters. */
function resolveId(arg: string, held: readonly Envelope[], rt: ReviewTexts): string {
  const typed = arg.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(typed) || typed.length < MIN_ID_PREFIX || typed.length > 10)
    throw new PapoError('unknown_message', rt.unknownId(arg));
  const matches = held.filter((m) => m.id.startsWith(typed)).map((m) => m.id);
  if (matches.length === 0) throw new PapoError('unknown_message', rt.unknownId(arg));
  if (matches.length > 1) throw new PapoError('unknown_message', rt.ambiguousId(arg, matches));
  return matches[0] as string;
}

// ---- --watch --------------------------------------------------------------------------------

const CTRL_C = '\u0003';
/** How long after an ESC the rest of its sequence may still arrive. */
const ESCAPE_MS = 100;
const CTRL_D = '\u0004';

async function watch(ctx: CliContext, dir: string, rt: ReviewTexts): Promise<void> {
  const keys = new KeyReader();
  const skipped = new Set<string>();
  say(rt.watchStart);
  let waitingShown = false;
  try {
    for (;;) {
      const next = readHeld(dir).find((m) => !skipped.has(m.id));
      if (next === undefined) {
        if (!waitingShown) say(rt.watchWaiting);
        waitingShown = true;
        const key = await keys.next(500);
        if (key === null ? keys.ended : isQuit(key)) break;
        continue;
      }
      waitingShown = false;
      say(`\n${describe(next, rt)}`);
      let key: string | null;
      // Keys typed before the message was shown do not decide it.
      keys.dropTyped();
      do {
        process.stdout.write(rt.watchPrompt);
        key = await keys.next();
        process.stdout.write('\n');
      } while (key !== null && !['a', 'r', 's'].includes(key.toLowerCase()) && !isQuit(key));
      if (key === null || isQuit(key)) break;
      const k = key.toLowerCase();
      if (k === 's') {
        skipped.add(next.id);
        say(rt.watchSkipped(next.id));
        continue;
      }
      const decision: ReviewDecision =
        k === 'a' ? { approve: [next.id], reject: [] } : { approve: [], reject: [next.id] };
      const decided = await decideAndTell(ctx, rt, dir, decision, [next], printed);
      // Not taken in time, or kept (inbox full): not shown again in this session.
      if (decided.left || decided.full.length > 0) skipped.add(next.id);
    }
  } catch (err) {
    reportError(ctx, err);
  } finally {
    keys.close();
  }
  say(rt.watchBye);
}

function isQuit(key: string): boolean {
  return key === 'q' || key === 'Q' || key === CTRL_C || key === CTRL_D;
}

/**
 * One key at a time from stdin. On a terminal (raw mode) a read is one key press: a single
 * character counts, anything longer (an arrow is ESC [ A, a paste is many) is ignored. From a
 * pipe, each character is a key (blanks skipped), so a script can decide: printf a | papo review --watch.
 */
class KeyReader {
  #queue: string[] = [];
  #waiter: ((key: string | null) => void) | undefined;
  ended = false;
  #raw: boolean;
  #escapeUntil = 0;

  constructor() {
    const input = process.stdin;
    this.#raw = input.isTTY === true;
    if (this.#raw) input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      if (this.#raw) {
        // An escape sequence may come in more than one read (ESC, then "[A"): what follows an
        // ESC within a moment is part of it.
        const now = Date.now();
        if (chunk.startsWith('\u001b')) this.#escapeUntil = now + ESCAPE_MS;
        else if (now >= this.#escapeUntil && [...chunk].length === 1) this.#push(chunk);
        return;
      }
      for (const ch of chunk) if (ch.trim() !== '') this.#push(ch);
    });
    input.on('end', () => {
      this.ended = true;
      this.#push(null);
    });
    input.resume();
  }

  /** The next key, or null at the end of input (or after `ms`, when given). */
  next(ms?: number): Promise<string | null> {
    const key = this.#queue.shift();
    if (key !== undefined) return Promise.resolve(key);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => settle(null), ms);
      const settle = (k: string | null) => {
        if (timer) clearTimeout(timer);
        this.#waiter = undefined;
        resolve(k);
      };
      this.#waiter = settle;
    });
  }

  /** Forgets keys pressed ahead (on a terminal only: a script's keys are meant in order). */
  dropTyped(): void {
    if (this.#raw) this.#queue.length = 0;
  }

  #push(key: string | null): void {
    if (this.#waiter) this.#waiter(key);
    else if (key !== null) this.#queue.push(key);
  }

  close(): void {
    if (this.#raw) process.stdin.setRawMode(false);
    // Destroyed, not paused: a terminal's stdin handle left open keeps the process alive.
    process.stdin.destroy();
  }
}
