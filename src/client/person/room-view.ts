// When `papo status` has seen the room, whoever looks: the CLI's own ephemeral member, just
// joined, or the profile's running papo mcp it asked over member.sock (ADR 0103). One rule for both,
// so the list is the same list either way.
import type { SayRoom } from './person-say.js';

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
    const signal = room.probe.signalState();
    const topicSeen = signal.joined && room.member.liveMembers().length >= signal.peers.length;
    if (!topicSeen) {
      topicSeenSince = undefined;
      return false;
    }
    topicSeenSince ??= Math.min(Date.now(), inRoomSince ?? Number.POSITIVE_INFINITY);
    const waited = Date.now() - topicSeenSince;
    const members = room.member.members();
    const onTopic = new Set(signal.peers);
    const linked = members.every((x) => !x.online || !onTopic.has(x.node) || x.path !== undefined);
    if (!linked && waited < LINK_SETTLE_MS) return false;
    return members.every((x) => x.online) || waited >= OFFLINE_AFTER_MS;
  };
}
