// papo say [--to NAME] TEXT...: a person speaks in the room (sender_kind "human"). It uses an
// ephemeral identity, waits up to 30 s for someone to be online and up to 15 s for the ack, and
// keeps no queue: when nobody is online, nothing is sent nor stored (docs/cli.md, "papo say").
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import type { OpenedMember } from '../../client/open-member.js';
import { MAX_BODY_BYTES, utf8Length } from '../../client/wire/frames.js';
import { sameName, validateMemberName } from '../../client/wire/names.js';
import { type CliContext, checkedProfile, hint, profileSuffix, reportError, text } from '../context.js';
import { networkNotes } from '../network-notes.js';
import { finish, openEphemeral, topicIsEmpty, waitFor } from '../room-session.js';

const CONNECT_WAIT_MS = 30_000;
const ACK_WAIT_MS = 15_000;
/** After the first ack, the longest wait for the others online to confirm too. */
const MORE_ACKS_MS = 400;
/** Without `to`: how long to wait for the hellos of the others on the topic, once one is online. */
const TOPIC_HELLO_WAIT_MS = 3_000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('say')
    .description('say something in the room yourself, as a person (agents see sender_kind="human")')
    .option('--to <name>', 'only this member stores and confirms it')
    .argument('<text...>', 'the message')
    .action(async (words: string[], opts: { to?: string }) => {
      const t = text(ctx);
      let member: OpenedMember | undefined;
      try {
        const body = words.join(' ').trim();
        if (body === '') throw new RangeError('the message is empty');
        if (utf8Length(body) > MAX_BODY_BYTES) throw new RangeError('the message is larger than 48 KiB');
        if (opts.to !== undefined) {
          hint(ctx, { name: opts.to });
          validateMemberName(opts.to);
        }
        checkedProfile(ctx);
        process.stderr.write(`${t.connecting}\n`);
        member = await openEphemeral(ctx, true);
        await speak(ctx, member, body, opts.to);
      } catch (err) {
        reportError(ctx, err);
      }
      await finish(member);
    });
}

/**
 * Says `body` in the room as the person, through an ephemeral member already open: waits for the
 * target (or anyone) to be online, sends, waits for the acks and prints who has it. Throws a
 * PapoError saying why when nobody (or not the target) is online or nobody confirmed.
 */
export async function speak(
  ctx: CliContext,
  m: OpenedMember,
  body: string,
  target: string | undefined,
  replyTo?: string,
): Promise<void> {
  const t = text(ctx);
  const isTarget = (name: string) => target === undefined || sameName(name, target);
  const knowsSomeone = () => m.member.members().length > 0;
  const ready = await waitFor(
    m,
    CONNECT_WAIT_MS,
    () => m.member.onlineNames().some(isTarget) || (topicIsEmpty(m) && !knowsSomeone()),
  );
  // Without `to`, the others on the room's topic are online too: give their hellos a moment
  // (a relayed link forms in a second or two), so they get it now and are named as having it,
  // as papo status waits for everyone on the topic.
  if (target === undefined && m.member.onlineNames().length > 0) {
    await waitFor(m, TOPIC_HELLO_WAIT_MS, () => {
      const signal = m.probe.signalState();
      return !signal.joined || m.member.liveMembers().length >= signal.peers.length;
    });
  }
  if (!m.member.onlineNames().some(isTarget)) {
    // Say why, when the network is the reason (on stderr, before the error itself).
    for (const line of await networkNotes(t, m, ctx.env)) process.stderr.write(`${line}\n`);
    if (!knowsSomeone() && (topicIsEmpty(m) || !ready)) {
      throw new PapoError('no_known_members', t.knowNoOne(profileSuffix(m.profile.profile)));
    }
    throw new PapoError('nobody_online', target ? t.memberNotOnline(target) : t.nobodyOnline);
  }
  const ackedBy = new Set<string>();
  m.member.on('delivered', ({ by }) => ackedBy.add(by));
  const result = await m.member.send(
    { body, ...(target ? { to: target } : {}), ...(replyTo ? { replyTo } : {}) },
    ACK_WAIT_MS,
  );
  if (result.ackedBy === null && result.refusedBy !== null) {
    throw new PapoError('inbox_full', t.inboxFull(result.refusedBy, result.id));
  }
  if (result.ackedBy === null) {
    throw new PapoError('not_acknowledged', t.notAcknowledged(result.id, ACK_WAIT_MS / 1000));
  }
  ackedBy.add(result.ackedBy);
  // Others online may confirm too: wait a moment for them, not for anyone already heard.
  const expected = m.member.onlineNames().filter(isTarget);
  await waitFor(m, MORE_ACKS_MS, () => expected.every((name) => ackedBy.has(name)));
  process.stdout.write(`${t.deliveredTo([...ackedBy].join(', '), result.id)}\n`);
  if (target === undefined) {
    // Members known but offline get it from those who stored it (catch-up, ADR 0063).
    const later = [
      ...new Set(
        m.member
          .members()
          .filter((x) => !x.online && ![...ackedBy].some((a) => sameName(a, x.name)))
          .map((x) => x.name),
      ),
    ];
    if (later.length > 0) process.stdout.write(`${t.sayLater(later.join(', '))}\n`);
  }
}
