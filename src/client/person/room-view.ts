// What `papo status` shows of the room, whoever looks: the CLI's own ephemeral member, just
// joined, or the profile's running papo mcp it asked over member.sock (ADR 0103). One wait rule
// for both (roomSeen) and one look that waits by it and makes the view (lookAtRoom), so the list
// is the same list either way.
import type { MemberStatus } from '../member-api.js';
import { type Profile, readQueueSummary } from '../store/profile-store.js';
import type { StatusView } from './handed-say.js';
import { type SayRoom, topicHeard, waitFor } from './person-say.js';

/**
 * How long, once everyone on the topic has said hello, the list waits for the links to them (a
 * link forms in 0.9-2.4 s across NATs: docs/performance.md); past it a member shows no path.
 */
export const LINK_SETTLE_MS = 5000;
/** How long after the topic is seen a known member not on it counts as offline. */
const OFFLINE_AFTER_MS = 1000;

/**
 * A check for waitFor: true once everyone on the topic has said hello, the link to each of them
 * is up (its path is what the list shows; a hello forwarded by another member can come before the
 * link: LINK_SETTLE_MS at most), and either every known member is online or a second has passed
 * since (a known member not on the topic is offline, unless it is reachable only through another
 * member, whose forwarded hello arrives within that second). `inRoomSince`: when the looker
 * joined, for a member that has been in the room for a while: it has waited already.
 */
export function roomSeen(room: SayRoom, inRoomSince?: number): () => boolean {
  let topicSeenSince: number | undefined;
  return () => {
    if (!topicHeard(room)) {
      topicSeenSince = undefined;
      return false;
    }
    topicSeenSince ??= Math.min(Date.now(), inRoomSince ?? Number.POSITIVE_INFINITY);
    const waited = Date.now() - topicSeenSince;
    const members = room.member.members();
    const onTopic = new Set(room.probe.signalState().peers);
    const linked = members.every((x) => !x.online || !onTopic.has(x.node) || x.path !== undefined);
    if (!linked && waited < LINK_SETTLE_MS) return false;
    return members.every((x) => x.online) || waited >= OFFLINE_AFTER_MS;
  };
}

/** What a look needs of the profile: its name, its person's name, its folder, its agent's node id. */
export type LookedProfile = Pick<Profile, 'profile' | 'name' | 'dir'> & { identity: { nodeId: string } };

/**
 * Waits up to `waitMs` for the room to show itself (roomSeen; `inRoomSince` as there) and returns
 * the view `papo status` prints. The members are those the looker knows: when it is the profile's
 * running agent (`room.self`), itself among them, online, with no path (it has no link to itself).
 */
export async function lookAtRoom(
  room: SayRoom,
  profile: LookedProfile,
  waitMs: number,
  inRoomSince?: number,
): Promise<StatusView> {
  await waitFor(room, waitMs, roomSeen(room, inRoomSince));
  const signal = room.probe.signalState();
  // The transport's health (a probe of up to 800 ms) and the disk's queues, read together.
  const [network, queues] = await Promise.all([room.member.network(), readQueueSummary(profile.dir)]);
  return {
    profile: profile.profile,
    name: profile.name,
    roomId: room.member.roomId,
    node: profile.identity.nodeId,
    members: seenMembers(room, profile),
    signal: { joined: signal.joined, peers: signal.peers },
    network,
    queues,
  };
}

/** The members a look lists, ordered by name (see lookAtRoom). */
export function seenMembers(room: SayRoom, profile: LookedProfile): MemberStatus[] {
  const members = room.member.members();
  if (room.self === undefined) return members;
  const own = { name: room.self, node: profile.identity.nodeId, kind: 'agent' as const, online: true };
  return [...members, own].sort((a, b) => a.name.localeCompare(b.name) || a.node.localeCompare(b.node));
}
