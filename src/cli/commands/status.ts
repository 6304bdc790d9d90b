// papo status [--timeout S]: tests the connection. When the profile's papo mcp runs, it asks it
// over member.sock (ADR 0103): its links to everyone are up already, and its view is the agent's
// own (direct/relayed is the path the agent's messages take). Otherwise, or when that papo mcp is
// older or goes away meanwhile, it joins the room with an ephemeral identity, looks for members
// for up to S seconds (20 by default; it stops early once everyone known and everyone on the
// topic has shown up) and lists them, with what they work on and whether this machine's link to
// them is direct or relayed. The same lines either way.
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import type { MemberStatus } from '../../client/member-api.js';
import type { OpenedMember } from '../../client/open-member.js';
import { askStatus, type PushSeen, type StatusView } from '../../client/person/handed-say.js';
import { emptyTopic } from '../../client/person/person-say.js';
import { lookAtRoom } from '../../client/person/room-view.js';
import { profileDir } from '../../client/store/home.js';
import { openProfile, type QueueSummary } from '../../client/store/profile-store.js';
import { shortId } from '../../client/wire/identity.js';
import { inertText } from '../../client/wire/inert-text.js';
import { deriveRoomKeys } from '../../client/wire/room-crypto.js';
import { type CliContext, checkedProfile, home, lang, profileSuffix, reportError, text } from '../context.js';
import { agentRestartNote, impostorNotes, networkNotesOf } from '../network-notes.js';
import { printLines } from '../output.js';
import { pushLine } from '../push-line.js';
import { reviewTexts } from '../review-texts.js';
import { finish, openEphemeral } from '../room-session.js';

/** What the list is made of, whoever looked: this run's member or the running papo mcp. */
interface Seen {
  /** The profile's folder, the profile and the agent's node id. */
  dir: string;
  profile: string;
  own: string;
  members: MemberStatus[];
  /** Node ids on the room's topic, and whether the topic is known to be empty. */
  onTopic: string[];
  topicEmpty: boolean;
  /** The network's notes (network-notes.ts) of whoever looked. */
  notes: string[];
  queues: QueueSummary;
  /** How room messages reach the agent: only the running papo mcp knows (ADR 0118). */
  push?: PushSeen;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('test the connection: who in the room is online, and what is queued or unread')
    .option('--timeout <seconds>', 'how long to look for members', '20')
    .action(async (opts: { timeout: string }) => {
      const t = text(ctx);
      let member: OpenedMember | undefined;
      try {
        const seconds = Number(opts.timeout);
        if (!Number.isFinite(seconds) || seconds < 1 || seconds > 600) {
          throw new RangeError(t.badTimeout(opts.timeout));
        }
        const dir = profileDir(home(ctx), checkedProfile(ctx));
        const view = await askStatus(dir, seconds * 1000);
        if (view !== undefined) await print(ctx, fromMember(ctx, dir, view, seconds));
        else {
          // The header first, as the look may take its seconds (or fail: a token refused).
          const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
          printLines(
            header(
              ctx,
              {
                profile: profile.profile,
                name: profile.name,
                roomId: deriveRoomKeys(profile.secret).roomId,
                node: profile.identity.nodeId,
              },
              seconds,
            ),
          );
          member = await openEphemeral(ctx);
          await print(ctx, await lookItself(ctx, member, seconds));
        }
      } catch (err) {
        reportError(ctx, err);
      }
      await finish(member);
    });
}

/** The header's lines: the profile, the room, the agent, how long it looks. */
function header(
  ctx: CliContext,
  view: Pick<StatusView, 'profile' | 'name' | 'roomId' | 'node'>,
  seconds: number,
) {
  const t = text(ctx);
  return [
    t.statusHeader(view.profile, view.name, view.roomId),
    t.agentIdentity(shortId(view.node)),
    t.lookingFor(seconds),
  ];
}

/** The running papo mcp's view (it looked at the room as this run would have: lookAtRoom). */
function fromMember(ctx: CliContext, dir: string, view: StatusView, seconds: number): Seen {
  printLines(header(ctx, view, seconds));
  return seenOf(ctx, dir, view);
}

/** This run's own look: an ephemeral member that waits for the room to show itself. */
async function lookItself(ctx: CliContext, m: OpenedMember, seconds: number): Promise<Seen> {
  const view = await lookAtRoom(m, m.profile, seconds * 1000);
  // This run has an identity of its own: the person's own agent is a member to it too.
  return seenOf(ctx, m.profile.dir, view, { node: view.node, name: text(ctx).yourAgent, online: false });
}

/** The list's makings from a view; `own`, the person's agent when it is not the looker (networkNotesOf). */
function seenOf(
  ctx: CliContext,
  dir: string,
  view: StatusView,
  own?: { node: string; name: string; online: boolean },
): Seen {
  const { signal } = view;
  return {
    dir,
    profile: view.profile,
    own: view.node,
    members: view.members,
    onTopic: signal.peers,
    topicEmpty: emptyTopic(signal),
    notes: networkNotesOf(text(ctx), view.network, view.members, ctx.env, own),
    queues: view.queues,
    ...(view.push !== undefined && { push: view.push }),
  };
}

/** The list and its notes, the same lines whoever looked. */
async function print(ctx: CliContext, seen: Seen): Promise<void> {
  const t = text(ctx);
  const { members, notes, queues } = seen;
  const restarts = await agentRestartNote(t, seen.dir);
  if (restarts !== undefined) notes.push(restarts);
  notes.push(...(await impostorNotes(t, seen.dir)));
  if (members.length === 0 && (seen.topicEmpty || seen.onTopic.length === 0)) {
    for (const line of notes) process.stderr.write(`${line}\n`);
    throw new PapoError('no_known_members', t.knowNoOne(profileSuffix(seen.profile)));
  }
  // Who is on the signal server's topic now: an offline member there is not gone (issue 40).
  const onTopic = new Set(seen.onTopic);
  printLines(
    members.length > 0
      ? members.map((x) => memberLine(x, x.node === seen.own, onTopic.has(x.node), t))
      : [t.noMembersOnTopic],
  );
  printLines(notes);
  printLines([t.counts(queues.queued, queues.unread)]);
  if (seen.push !== undefined) printLines([pushLine(t, seen.push)]);
  // The person's own review gate (ADR 0081), when on or when something waits for them.
  if (queues.reviewing || queues.held > 0)
    printLines([reviewTexts(lang(ctx)).statusLine(queues.reviewing, queues.held)]);
  // Who the queue waits for (ADR 0063), and how to stop waiting for someone who left.
  // `papo forget` is for members who left: not offered when everyone waited for is on the topic.
  const there = new Set(members.filter((x) => onTopic.has(x.node)).map((x) => x.name.toLowerCase()));
  if (queues.owed.length > 0)
    printLines([
      t.queuedFor(
        queues.owed.map(({ name, count }) => ({ name: name === '' ? t.firstToConfirm : name, count })),
        profileSuffix(seen.profile),
        queues.owed.some(({ name }) => name !== '' && !there.has(name.toLowerCase())),
      ),
    ]);
}

function memberLine(
  m: MemberStatus,
  isOwnAgent: boolean,
  onTopic: boolean,
  t: ReturnType<typeof text>,
): string {
  // Room text (normalised when its hello arrived, escaped again here: ADR 0059).
  const about = isOwnAgent ? t.yourAgent : m.about === undefined ? undefined : inertText(m.about, 'line');
  const link =
    m.path === undefined
      ? undefined
      : m.quietSeconds === undefined
        ? m.path
        : t.notAnswering(m.quietSeconds, m.path);
  const path = m.online && link !== undefined ? ` (${link})` : '';
  const state = m.online ? t.online : onTopic && !isOwnAgent ? t.onSignalServer : t.offline;
  return `  ${m.name} [${shortId(m.node)}] ${state}${about ? ` — ${about}` : ''}${path}`;
}
