// papo status [--timeout S]: tests the connection. It joins the room with an ephemeral identity,
// looks for members for up to S seconds (20 by default; it stops early once everyone known and
// everyone on the topic has shown up) and lists them, with what they work on and whether this
// machine's link to them is direct or relayed. It runs beside the profile's papo mcp.
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import type { MemberStatus } from '../../client/member-api.js';
import type { OpenedMember } from '../../client/open-member.js';
import { openProfile, readQueueSummary } from '../../client/store/profile-store.js';
import { shortId } from '../../client/wire/identity.js';
import { inertText } from '../../client/wire/inert-text.js';
import { deriveRoomKeys } from '../../client/wire/room-crypto.js';
import { type CliContext, checkedProfile, home, lang, profileSuffix, reportError, text } from '../context.js';
import { agentRestartNote, impostorNotes, networkNotes } from '../network-notes.js';
import { printLines } from '../output.js';
import { reviewTexts } from '../review-texts.js';
import { finish, openEphemeral, topicIsEmpty, waitFor } from '../room-session.js';

/**
 * How long, once everyone on the topic has said hello, the list waits for this run's links to them
 * (a link forms in 0.9-2.4 s across NATs: docs/performance.md); past it a member shows no path.
 */
const LINK_SETTLE_MS = 5000;

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
        const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
        printLines([
          t.statusHeader(profile.profile, profile.name, deriveRoomKeys(profile.secret).roomId),
          t.agentIdentity(shortId(profile.identity.nodeId)),
          t.lookingFor(seconds),
        ]);
        member = await openEphemeral(ctx);
        const m = member;
        // Done when everyone on the topic has said hello, this run's link to each of them is up
        // (its path is what the list shows; a hello forwarded by the person's own agent can come
        // before the link: LINK_SETTLE_MS at most), and either every known member is online or a
        // second has passed since (a known member not on the topic is offline, unless it is
        // reachable only through another member, whose forwarded hello arrives within that second).
        let topicSeenSince: number | undefined;
        const everyoneSeen = () => {
          const signal = m.probe.signalState();
          const topicSeen = signal.joined && m.member.liveMembers().length >= signal.peers.length;
          if (!topicSeen) {
            topicSeenSince = undefined;
            return false;
          }
          topicSeenSince ??= Date.now();
          const waited = Date.now() - topicSeenSince;
          const members = m.member.members();
          const onTopic = new Set(signal.peers);
          const linked = members.every((x) => !x.online || !onTopic.has(x.node) || x.path !== undefined);
          if (!linked && waited < LINK_SETTLE_MS) return false;
          return members.every((x) => x.online) || waited >= 1000;
        };
        await waitFor(m, seconds * 1000, everyoneSeen);
        const members = m.member.members();
        const notes = await networkNotes(t, m, ctx.env);
        const restarts = await agentRestartNote(t, profile.dir);
        if (restarts !== undefined) notes.push(restarts);
        notes.push(...(await impostorNotes(t, profile.dir)));
        if (members.length === 0 && (topicIsEmpty(m) || m.probe.signalState().peers.length === 0)) {
          for (const line of notes) process.stderr.write(`${line}\n`);
          throw new PapoError('no_known_members', t.knowNoOne(profileSuffix(profile.profile)));
        }
        const own = profile.identity.nodeId;
        printLines(
          members.length > 0 ? members.map((x) => memberLine(x, x.node === own, t)) : [t.noMembersOnTopic],
        );
        printLines(notes);
        const queues = await readQueueSummary(profile.dir);
        printLines([t.counts(queues.queued, queues.unread)]);
        // The person's own review gate (ADR 0081), when on or when something waits for them.
        if (queues.reviewing || queues.held > 0)
          printLines([reviewTexts(lang(ctx)).statusLine(queues.reviewing, queues.held)]);
        // Who the queue waits for (ADR 0063), and how to stop waiting for someone who left.
        // `papo forget` is for members who left: not offered when everyone waited for is on the topic.
        const onTopic = new Set(m.probe.signalState().peers);
        const there = new Set(members.filter((x) => onTopic.has(x.node)).map((x) => x.name.toLowerCase()));
        if (queues.owed.length > 0)
          printLines([
            t.queuedFor(
              queues.owed.map(({ name, count }) => ({ name: name === '' ? t.firstToConfirm : name, count })),
              profileSuffix(profile.profile),
              queues.owed.some(({ name }) => name !== '' && !there.has(name.toLowerCase())),
            ),
          ]);
      } catch (err) {
        reportError(ctx, err);
      }
      await finish(member);
    });
}

function memberLine(m: MemberStatus, isOwnAgent: boolean, t: ReturnType<typeof text>): string {
  // Room text (normalised when its hello arrived, escaped again here: ADR 0059).
  const about = isOwnAgent ? t.yourAgent : m.about === undefined ? undefined : inertText(m.about, 'line');
  const path = m.online && m.path ? ` (${m.path})` : '';
  return `  ${m.name} [${shortId(m.node)}] ${m.online ? t.online : t.offline}${about ? ` — ${about}` : ''}${path}`;
}
