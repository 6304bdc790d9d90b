// The hub: who is on which topic, and delivery of membership events and signals. The app parses
// and polices messages; the hub only moves them. MemoryHub serves one process; RedisHub
// (redis-hub.ts) shares the same local bookkeeping across replicas.
import type { Metrics } from './metrics.js';

/** A socket as the hub sees it. */
export interface Member {
  readonly id: number;
  /** topic -> the peer id this socket joined it as (one peer per topic per socket). */
  readonly topics: Map<string, string>;
  /** Sends an already serialised server message. */
  sendText(text: string): void;
}

export type JoinResult = 'ok' | 'room_full';

export interface Hub {
  /** Joins `member` to `topic` as `peer`; on 'ok' the hub has sent the `peers` message. */
  join(member: Member, topic: string, peer: string): Promise<JoinResult>;
  leave(member: Member, topic: string): Promise<void>;
  /**
   * Forwards a sealed blob to `to` on `topic`; false when no such peer is there (unknown_peer).
   * `plain`: `data` has no character JSON escapes (parse.ts found it so), so it is written as is.
   */
  signal(member: Member, topic: string, to: string, data: string, plain?: boolean): Promise<boolean>;
  /** The socket is gone: leave every topic it was on. */
  dropMember(member: Member): Promise<void>;
  counts(): { topics: number; peers: number };
  /** False while a shared store is unreachable (GET /healthz answers 503). */
  healthy(): boolean;
  close(): Promise<void>;
}

export interface Entry {
  member: Member;
  /** Which socket holds the membership, unique across replicas: "the newest socket wins". */
  owner: string;
  /** Messages held back until this member has received its `peers` list (RedisHub only). */
  queue: string[] | undefined;
}

export const text = {
  peers: (topic: string, peers: string[]): string => JSON.stringify({ t: 'peers', topic, peers }),
  joined: (topic: string, peer: string): string => JSON.stringify({ t: 'joined', topic, peer }),
  left: (topic: string, peer: string): string => JSON.stringify({ t: 'left', topic, peer }),
  // What JSON.stringify({ t: 'signal', topic, from, data }) gives (topic and from are hex), built
  // by hand: serialising the blob is most of the cost of a forward, and a plain one needs nothing.
  signal: (topic: string, from: string, data: string, plain = false): string =>
    `{"t":"signal","topic":"${topic}","from":"${from}","data":${plain ? `"${data}"` : JSON.stringify(data)}}`,
};

/** The memberships held by sockets of this process, by topic then peer id. */
export class LocalRooms {
  readonly rooms = new Map<string, Map<string, Entry>>();
  peers = 0;

  get(topic: string, peer: string): Entry | undefined {
    return this.rooms.get(topic)?.get(peer);
  }

  /** Adds the entry; returns the entry it replaced (another socket with the same peer id). */
  set(topic: string, peer: string, entry: Entry): Entry | undefined {
    let room = this.rooms.get(topic);
    if (room === undefined) {
      room = new Map();
      this.rooms.set(topic, room);
    }
    const old = room.get(peer);
    room.set(peer, entry);
    if (old === undefined) this.peers++;
    entry.member.topics.set(topic, peer);
    if (old !== undefined && old.member !== entry.member) old.member.topics.delete(topic);
    return old;
  }

  /** Removes the membership if `member` still holds it; true when it did. */
  delete(topic: string, peer: string, member: Member): boolean {
    const room = this.rooms.get(topic);
    const entry = room?.get(peer);
    if (room === undefined || entry === undefined || entry.member !== member) return false;
    room.delete(peer);
    this.peers--;
    if (room.size === 0) this.rooms.delete(topic);
    if (member.topics.get(topic) === peer) member.topics.delete(topic);
    return true;
  }

  /** Delivers to every local member of `topic` except `exceptPeer`. */
  broadcast(topic: string, exceptPeer: string, message: string): void {
    const room = this.rooms.get(topic);
    if (room === undefined) return;
    for (const [peer, entry] of room) if (peer !== exceptPeer) deliver(entry, message);
  }
}

export function deliver(entry: Entry, message: string): void {
  if (entry.queue !== undefined) entry.queue.push(message);
  else entry.member.sendText(message);
}

/**
 * One process, everything in memory: each operation does all its work before it returns (its
 * promise is already settled), so a socket's messages cost no more than a microtask each.
 */
export class MemoryHub implements Hub {
  private readonly local = new LocalRooms();

  constructor(
    private readonly maxPeersPerTopic: number,
    private readonly metrics: Metrics,
  ) {}

  async join(member: Member, topic: string, peer: string): Promise<JoinResult> {
    const room = this.local.rooms.get(topic);
    const existing = room?.get(peer);
    if (existing === undefined && room !== undefined && room.size >= this.maxPeersPerTopic)
      return 'room_full';
    const others = room === undefined ? [] : [...room.keys()].filter((p) => p !== peer);
    member.sendText(text.peers(topic, others));
    if (existing?.member === member) return 'ok'; // joining again is harmless: the list is resent
    this.local.set(topic, peer, { member, owner: String(member.id), queue: undefined });
    // The newest socket wins (ADR 0021): the old socket is told its membership ended, and the
    // others hear `joined` again, which tells them the peer has a new session.
    if (existing !== undefined) existing.member.sendText(text.left(topic, peer));
    this.local.broadcast(topic, peer, text.joined(topic, peer));
    return 'ok';
  }

  async leave(member: Member, topic: string): Promise<void> {
    this.#leave(member, topic);
  }

  #leave(member: Member, topic: string): void {
    const peer = member.topics.get(topic);
    if (peer === undefined) return;
    if (this.local.delete(topic, peer, member)) this.local.broadcast(topic, peer, text.left(topic, peer));
  }

  async signal(member: Member, topic: string, to: string, data: string, plain?: boolean): Promise<boolean> {
    const from = member.topics.get(topic);
    const target = this.local.get(topic, to);
    if (from === undefined || target === undefined) return false;
    deliver(target, text.signal(topic, from, data, plain));
    this.metrics.signalsForwarded++;
    return true;
  }

  async dropMember(member: Member): Promise<void> {
    for (const topic of [...member.topics.keys()]) this.#leave(member, topic);
  }

  counts(): { topics: number; peers: number } {
    return { topics: this.local.rooms.size, peers: this.local.peers };
  }

  healthy(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}
