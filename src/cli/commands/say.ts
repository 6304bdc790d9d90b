// papo say [--to NAME] TEXT...: a person speaks in the room (sender_kind "human"), signed with
// their own key. When the profile's papo mcp runs, the say is handed to it and goes over the links
// it has (ADR 0102); otherwise an ephemeral member of its own. Either way it waits up to 30 s for
// someone to be online and up to 15 s for the ack, and keeps no queue: when nobody is online,
// nothing is sent nor stored (docs/cli.md, "papo say").
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import type { OpenedMember } from '../../client/open-member.js';
import { handSay } from '../../client/person/handed-say.js';
import { newPersonSay, type PersonSay, type SayOutcome, sayInRoom } from '../../client/person/person-say.js';
import { profileDir } from '../../client/store/home.js';
import { checkedSay } from '../actions/say-input.js';
import { type CliContext, checkedProfile, hint, home, profileSuffix, reportError, text } from '../context.js';

// A say handed to the running papo mcp loads neither the room session (the network, the store)
// nor the network notes unless it needs them (ADR 0102: its wall time is mostly module loading).
const session = () => import('../room-session.js');
const notesModule = () => import('../network-notes.js');

export function register(program: Command, ctx: CliContext): void {
  program
    .command('say')
    .description('say something in the room yourself, as a person (agents see sender_kind="human")')
    .option('--to <name>', 'only this member stores and confirms it')
    .argument('<text...>', 'the message')
    .action((words: string[], opts: { to?: string }) => sayLine(ctx, words, opts));
}

/** `papo say`'s action: from commander, or from main.ts for a plain line read without it. */
export async function sayLine(
  ctx: CliContext,
  words: string[],
  opts: { to?: string | undefined },
): Promise<void> {
  let member: OpenedMember | undefined;
  try {
    if (opts.to !== undefined) hint(ctx, { name: opts.to });
    const body = checkedSay(text(ctx), { body: words.join(' '), to: opts.to });
    member = await say(ctx, body, opts.to);
  } catch (err) {
    reportError(ctx, err);
  }
  await (await session()).finish(member);
}

/**
 * Says `body` in the room as the person, in reply to `replyTo` if given: handed to the profile's
 * running papo mcp when one listens, else through an ephemeral member, which it returns (the
 * caller closes it with finish). Prints who has it; throws a PapoError saying why nobody (or not
 * the target) is online or nobody confirmed.
 */
export async function say(
  ctx: CliContext,
  body: string,
  target: string | undefined,
  replyTo?: string,
): Promise<OpenedMember | undefined> {
  process.stderr.write(`${text(ctx).connecting}\n`);
  const said = await sayOnce(ctx, newPersonSay(body, target, replyTo));
  tell(ctx, said.outcome, said.notes, checkedProfile(ctx));
  return said.member;
}

/** How a say ended, the network notes that explain a nobody, and the ephemeral member if one ran. */
export interface Said {
  outcome: SayOutcome;
  notes: string[];
  member?: OpenedMember;
}

/**
 * Runs `said` as `papo say` does, and returns how it ended without printing (papo web shows it):
 * handed to the running papo mcp when one listens, else through an ephemeral member, given to
 * `opened` as soon as it is open so that the caller closes it even when the say throws.
 */
export async function sayOnce(
  ctx: CliContext,
  said: PersonSay,
  opened: (m: OpenedMember) => void = () => {},
): Promise<Said> {
  const profile = checkedProfile(ctx);
  const handed = await handSay(profileDir(home(ctx), profile), said);
  if (typeof handed === 'object') {
    const { outcome, network, members } = handed.answer;
    const notes =
      network && members ? (await notesModule()).networkNotesOf(text(ctx), network, members, ctx.env) : [];
    return { outcome, notes };
  }
  // No papo mcp listens, or it went away before it answered: the say runs its own member, and a
  // member that had it already stores it once (the same id) and confirms again.
  // Its transport process starts while this one loads the member's modules (ADR 0091).
  (await import('../../client/transport/early-fork.js')).forkTransportEarly(ctx.env);
  const member = await (await session()).openEphemeral(ctx, true);
  opened(member);
  return { ...(await speakOutcome(ctx, member, said)), member };
}

async function speakOutcome(
  ctx: CliContext,
  m: OpenedMember,
  said: PersonSay,
): Promise<{ outcome: SayOutcome; notes: string[] }> {
  const outcome = await sayInRoom(m, said, (s, ms, acked) => {
    // Kept while the command lives: acks after the first count too (the wait for more acks).
    m.member.on('delivered', ({ id, by }) => id === s.id && acked(by));
    return m.member.send(s, ms);
  });
  const nobody = outcome.t === 'no_known_members' || outcome.t === 'nobody_online';
  // Say why, when the network is the reason (on stderr, before the error itself).
  const notes = nobody ? await (await notesModule()).networkNotes(text(ctx), m, ctx.env) : [];
  return { outcome, notes };
}

/** A say's end in words: who has it (`ok`), or why nobody does, with the error's code. */
export function outcomeText(
  ctx: CliContext,
  outcome: SayOutcome,
  profile: string,
):
  | { ok: true; lines: string[] }
  | { ok: false; code: Exclude<SayOutcome['t'], 'delivered'>; message: string } {
  const t = text(ctx);
  switch (outcome.t) {
    case 'delivered': {
      const lines = [t.deliveredTo(outcome.ackedBy.join(', '), outcome.id)];
      if (outcome.later.length > 0) lines.push(t.sayLater(outcome.later.join(', ')));
      return { ok: true, lines };
    }
    case 'no_known_members':
      return { ok: false, code: outcome.t, message: t.knowNoOne(profileSuffix(profile)) };
    case 'nobody_online':
      return {
        ok: false,
        code: outcome.t,
        message: outcome.to ? t.memberNotOnline(outcome.to) : t.nobodyOnline,
      };
    case 'inbox_full':
      return { ok: false, code: outcome.t, message: t.inboxFull(outcome.by, outcome.id) };
    case 'not_acknowledged':
      return { ok: false, code: outcome.t, message: t.notAcknowledged(outcome.id, outcome.seconds) };
  }
}

/** The texts of a say's end: who has it on stdout, or the reason nobody does, thrown. */
function tell(ctx: CliContext, outcome: SayOutcome, notes: readonly string[], profile: string): void {
  for (const line of notes) process.stderr.write(`${line}\n`);
  const said = outcomeText(ctx, outcome, profile);
  if (!said.ok) throw new PapoError(said.code, said.message);
  for (const line of said.lines) process.stdout.write(`${line}\n`);
}
