// Who is in the room and who is online (docs/protocol.md, "Presence"): a member is online while a link to
// it is open, or it was heard from (hello, msg) within ONLINE_WINDOW_MS while this member has a
// link to someone (who may forward it); a goodbye (it left the signal server's topic) makes it
// offline at once. Changes are reported as `online`/`offline`.
// Members remembered are bounded (ADR 0062): past MAX_KNOWN_PEERS, a new one is heard only once
// one long gone is forgotten, so a flood of forged hellos cannot grow memory or peers.json.

import type { LinkPath, MemberStatus } from '../member-api.js';
import type { PeerRecord } from '../store/profile-store.js';
import type { HelloFrame } from '../wire/frames.js';
import type { SenderKind } from '../wire/messages.js';

/** Presence: a member heard from within this window counts as online (docs/protocol.md, "Presence": 75 s). */
export const ONLINE_WINDOW_MS = 75_000;
/**
 * A link that carried a frame its member answers (a message: an ack or a refusal comes back in
 * milliseconds, a second over TURN) and has brought nothing back for this long is "not
 * answering": after a network move a WebRTC link stays open for 14-17 s before it closes, and
 * status said "direct" all that while (issue 40).
 */
export const LINK_QUIET_MS = 6_000;
/** Members remembered at most, live and on disk (a room holds 32 at a time on the signal server). */
export const MAX_KNOWN_PEERS = 256;

/** A member remembered across sessions (peers.json, as the store reads it). */
export type KnownPeer = PeerRecord;

/** A member heard from in this session. */
export interface LivePeer {
  name: string;
  about?: string;
  kind: SenderKind;
  ephemeral: boolean;
  lastSeen: number;
  review?: true;
}

/** What presence needs of the links: who is a neighbour now, and over which path. */
export interface PresenceLinks {
  neighbours(): string[];
  path(peer: string): LinkPath | undefined;
}

export interface PresenceOptions {
  /** This member's node id (never listed). */
  self: string;
  links: PresenceLinks;
  /** The members remembered (peers.json; for an ephemeral member, read-only). */
  known: () => Record<string, KnownPeer>;
  now: () => number;
  online: (member: MemberStatus) => void;
  offline: (member: MemberStatus) => void;
}

export class Presence {
  #self: string;
  #links: PresenceLinks;
  #known: () => Record<string, KnownPeer>;
  #now: () => number;
  #emitOnline: (member: MemberStatus) => void;
  #emitOffline: (member: MemberStatus) => void;
  #live = new Map<string, LivePeer>();
  /** Members reported online (so each change is reported once). */
  #online = new Set<string>();
  /** Per neighbour: since when a frame it answers went out with nothing back on its link. */
  #unanswered = new Map<string, number>();

  constructor(options: PresenceOptions) {
    this.#self = options.self;
    this.#links = options.links;
    this.#known = options.known;
    this.#now = options.now;
    this.#emitOnline = options.online;
    this.#emitOffline = options.offline;
  }

  /** Known members other than this one (remembered or live, never ephemeral), ordered by name. */
  members(): MemberStatus[] {
    const byNode = new Map<string, MemberStatus>();
    for (const [node, p] of Object.entries(this.#known())) {
      if (node === this.#self) continue;
      byNode.set(node, this.#statusOf(node, p));
    }
    for (const [node, p] of this.#live) {
      if (node === this.#self || p.ephemeral) continue;
      byNode.set(node, this.#statusOf(node, p));
    }
    return [...byNode.values()].sort((a, b) => a.name.localeCompare(b.name) || a.node.localeCompare(b.node));
  }

  /** Members seen on the room right now, including ephemeral identities. */
  liveMembers(): MemberStatus[] {
    return [...this.#live.entries()]
      .filter(([node]) => node !== this.#self)
      .map(([node, p]) => this.#statusOf(node, p));
  }

  onlineNames(): string[] {
    const names = this.members()
      .filter((m) => m.online)
      .map((m) => m.name);
    return [...new Set(names)];
  }

  isOnline(node: string): boolean {
    const neighbours = this.#links.neighbours();
    if (neighbours.includes(node)) return true;
    // Heard lately counts only while a link could still carry it (another member forwards):
    // with no link at all, nothing of the room reaches this member, and a room of two whose one
    // link closed does not show its other member "online, through another member" (issue 40).
    if (neighbours.length === 0) return false;
    const live = this.#live.get(node);
    return live !== undefined && this.#now() - live.lastSeen <= ONLINE_WINDOW_MS;
  }

  /** The member heard from in this session as `node`, if any. */
  live(node: string): LivePeer | undefined {
    return this.#live.get(node);
  }

  /**
   * A frame that `peer` answers went out on its link (a message to it or to everyone: it acks or
   * refuses it). Counts from the first one not answered yet.
   */
  expectAnswer(peer: string): void {
    const live = this.#live.get(peer);
    if (live === undefined || live.ephemeral || this.#unanswered.has(peer)) return;
    this.#unanswered.set(peer, this.#now());
  }

  /** Anything came in over `peer`'s link, or the link closed: nothing is waited for on it. */
  linkHeard(peer: string): void {
    this.#unanswered.delete(peer);
  }

  /** A message from `node` arrived first-hand: it is alive now. */
  heardFrom(node: string): void {
    const live = this.#live.get(node);
    if (live) live.lastSeen = this.#now();
  }

  /**
   * A hello: the member is live (past the cap, only once someone long gone is forgotten: a flood
   * of forged hellos fills the cap only with members "online" for 75 s, and then they age out).
   * With `remember`, a non-ephemeral member is also remembered in `known` (within the same cap).
   * Returns whether it was heard, and whether what a person would see of it changed.
   */
  hello(hello: HelloFrame, remember: boolean): { heard: boolean; changed: boolean } {
    const now = this.#now();
    if (!this.#live.has(hello.node) && !forgetOne(this.#live, (n) => this.isOnline(n)))
      return { heard: false, changed: false };
    this.#live.set(hello.node, {
      name: hello.name,
      ...(hello.about ? { about: hello.about } : {}),
      kind: hello.kind,
      ephemeral: hello.ephemeral,
      lastSeen: now,
      ...(hello.review ? { review: true as const } : {}),
    });
    const known = this.#known();
    if (!remember || hello.ephemeral || !(hello.node in known || forgetOne(known, (n) => this.isOnline(n))))
      return { heard: true, changed: false };
    const before = known[hello.node];
    const changed =
      !before || before.name !== hello.name || before.about !== hello.about || before.review !== hello.review;
    known[hello.node] = {
      name: hello.name,
      ...(hello.about ? { about: hello.about } : {}),
      kind: hello.kind,
      lastSeen: now,
      ...(hello.review ? { review: true as const } : {}),
    };
    return { heard: true, changed };
  }

  /**
   * A member that closes leaves the signal server's topic: it is offline from then on, not 75 s
   * later (it comes back online with its next hello or message, directly or forwarded).
   */
  left(node: string): void {
    const live = this.#live.get(node);
    if (live?.ephemeral)
      this.#live.delete(node); // a say/status run: it will not come back
    else if (live) live.lastSeen = 0;
  }

  /** Forgets the members remembered under `name` (`papo forget`); returns how many. */
  forget(matches: (name: string) => boolean): number {
    const known = this.#known();
    let count = 0;
    for (const [node, p] of Object.entries(known)) {
      if (!matches(p.name)) continue;
      delete known[node];
      if (this.#live.has(node) && !this.isOnline(node)) this.#live.delete(node);
      count++;
    }
    return count;
  }

  /** Reports members that came online or went offline since the last call. */
  update(): void {
    for (const member of this.members()) {
      const was = this.#online.has(member.node);
      if (member.online && !was) {
        this.#online.add(member.node);
        this.#emitOnline(member);
      } else if (!member.online && was) {
        this.#online.delete(member.node);
        this.#emitOffline(member);
      }
    }
  }

  #statusOf(node: string, p: KnownPeer | LivePeer): MemberStatus {
    const path = this.#links.path(node);
    const since = path === undefined ? undefined : this.#unanswered.get(node);
    const quietMs = since === undefined ? 0 : this.#now() - since;
    return {
      name: p.name,
      node,
      kind: p.kind,
      ...(p.about ? { about: p.about } : {}),
      online: this.isOnline(node),
      ...(path ? { path } : {}),
      ...(quietMs >= LINK_QUIET_MS ? { quietSeconds: Math.floor(quietMs / 1000) } : {}),
      ...(p.review ? { reviews: true } : {}),
    };
  }
}

/**
 * Makes room in `peers` for one more member: nothing to do under the cap; past it, forgets the
 * one heard from longest ago if it is offline. False when every remembered member is online.
 */
function forgetOne(
  peers: Map<string, { lastSeen: number }> | Record<string, { lastSeen: number }>,
  isOnline: (node: string) => boolean,
): boolean {
  const entries = peers instanceof Map ? [...peers.entries()] : Object.entries(peers);
  if (entries.length < MAX_KNOWN_PEERS) return true;
  let oldest: [string, { lastSeen: number }] | undefined;
  for (const entry of entries) if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
  if (!oldest || isOnline(oldest[0])) return false;
  if (peers instanceof Map) peers.delete(oldest[0]);
  else delete peers[oldest[0]];
  return true;
}
