// papo say [--to NAME] TEXT...: a person speaks in the room (sender_kind "human"), signed with
// their own key. When the profile's papo mcp runs, the say is handed to it and goes over the links
// it has (ADR 0102); otherwise an ephemeral member of its own. Either way it waits up to 30 s for
// someone to be online and up to 15 s for the ack, and keeps no queue: when nobody is online,
// nothing is sent nor stored (docs/cli.md, "papo say").
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import type { OpenedMember } from '../../client/open-member.js';
import { type HandedAnswer, handSay } from '../../client/room/handed-say.js';
import {
  MAX_BODY_BYTES,
  newPersonSay,
  type PersonSay,
  type SayOutcome,
  sayInRoom,
} from '../../client/room/person-say.js';
import { profileDir } from '../../client/store/home.js';
import { validateMemberName } from '../../client/wire/names.js';
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
    .action(async (words: string[], opts: { to?: string }) => {
      let member: OpenedMember | undefined;
      try {
        const body = words.join(' ').trim();
        if (body === '') throw new RangeError('the message is empty');
        if (Buffer.byteLength(body) > MAX_BODY_BYTES)
          throw new RangeError('the message is larger than 48 KiB');
        if (opts.to !== undefined) {
          hint(ctx, { name: opts.to });
          validateMemberName(opts.to);
        }
        member = await say(ctx, body, opts.to);
      } catch (err) {
        reportError(ctx, err);
      }
      await (await session()).finish(member);
    });
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
  const profile = checkedProfile(ctx);
  const said = newPersonSay(body, target, replyTo);
  process.stderr.write(`${text(ctx).connecting}\n`);
  const handed = await handSay(profileDir(home(ctx), profile), said);
  if (typeof handed === 'object') {
    await report(ctx, handed.answer, profile);
    return undefined;
  }
  // No papo mcp listens, or it went away before it answered: the say runs its own member, and a
  // member that had it already stores it once (the same id) and confirms again.
  // Its transport process starts while this one loads the member's modules (ADR 0091).
  (await import('../../client/transport/early-fork.js')).forkTransportEarly(ctx.env);
  const member = await (await session()).openEphemeral(ctx, true);
  await speak(ctx, member, said);
  return member;
}

/** Says `said` through an ephemeral member already open, and prints who has it (see `say`). */
export async function speak(ctx: CliContext, m: OpenedMember, said: PersonSay): Promise<void> {
  const outcome = await sayInRoom(m, said, (s, ms, acked) => {
    // Kept while the command lives: acks after the first count too (the wait for more acks).
    m.member.on('delivered', ({ id, by }) => id === s.id && acked(by));
    return m.member.send(s, ms);
  });
  const nobody = outcome.t === 'no_known_members' || outcome.t === 'nobody_online';
  // Say why, when the network is the reason (on stderr, before the error itself).
  const notes = nobody ? await (await notesModule()).networkNotes(text(ctx), m, ctx.env) : [];
  tell(ctx, outcome, notes, m.profile.profile);
}

/** Prints the answer of the running papo mcp a say was handed to. */
async function report(ctx: CliContext, answer: HandedAnswer, profile: string): Promise<void> {
  const { network, members } = answer;
  const notes =
    network && members ? (await notesModule()).networkNotesOf(text(ctx), network, members, ctx.env) : [];
  tell(ctx, answer.outcome, notes, profile);
}

/** The texts of a say's end: who has it on stdout, or the reason nobody does, thrown. */
function tell(ctx: CliContext, outcome: SayOutcome, notes: readonly string[], profile: string): void {
  const t = text(ctx);
  for (const line of notes) process.stderr.write(`${line}\n`);
  switch (outcome.t) {
    case 'delivered':
      process.stdout.write(`${t.deliveredTo(outcome.ackedBy.join(', '), outcome.id)}\n`);
      if (outcome.later.length > 0) process.stdout.write(`${t.sayLater(outcome.later.join(', '))}\n`);
      return;
    case 'no_known_members':
      throw new PapoError('no_known_members', t.knowNoOne(profileSuffix(profile)));
    case 'nobody_online':
      throw new PapoError('nobody_online', outcome.to ? t.memberNotOnline(outcome.to) : t.nobodyOnline);
    case 'inbox_full':
      throw new PapoError('inbox_full', t.inboxFull(outcome.by, outcome.id));
    case 'not_acknowledged':
      throw new PapoError('not_acknowledged', t.notAcknowledged(outcome.id, outcome.seconds));
  }
}
