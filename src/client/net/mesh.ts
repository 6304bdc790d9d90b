// The link manager: keeps one PeerLink to every other member on the room's topic, using the signal
// client to meet them. Rules (docs/transport.md, ADR 0032):
//   - the smaller node id offers, the other answers: two peers never offer to each other (no glare);
//   - the answerer "knocks" (a sealed {k:'knock'}) when it sees the offerer on the topic and holds no
//     link to it, so a restarted answerer is linked again at once instead of waiting for the
//     offerer to notice that the old link died;
//   - a link that fails or closes is re-offered (or knocked for) at once, then after 1, 2, 4, 8, 10,
//     10... s with jitter (backoff.ts) while the peer is on the topic; the delay starts over once a
//     link opens;
//   - `left` closes the link; a lost signal server closes nothing (open links keep working).
// It implements the NodeTransport the room node drives (room-node.ts).

import { EventEmitter } from 'node:events';
import { messageOf } from '../errors.js';
import { type Log, type LogTarget, shortId, toLog } from '../log.js';
import { Backoff, LINK_RETRY, type Random, type Schedule, scheduleOf } from './backoff.js';
import type { LinkPath, TransportEvents } from './health.js';
import type { IceConfig } from './ice-config.js';
import { resolveIceConfig } from './ice-config.js';
import { KNOCK, type LinkSignal, parseMeshSignal } from './link-signal.js';
import { type LinkState, PeerLink, releaseNative, retainNative } from './peer-link.js';
import type { SignalClient } from './signal-client.js';

/**
 * The most peers a member keeps links (or link attempts) with. A room is a few people, and a
 * signal server that announces more — a hostile one can announce thousands — must not make the
 * member run a native PeerConnection, and its thread, for each. Members past the cap are still
 * reached through the others (frames are forwarded). Matches the server's default room size.
 */
export const MAX_PEERS = 32;

/** What the mesh works with (js-libp2p's `components`): the signal client and the services it calls. */
export interface MeshComponents {
  signal: SignalClient;
  /** Gives back a closed link's TURN allocations, named by their relayed addresses (ADR 0058). */
  releaseRelays?: (relayed: string[]) => Promise<void>;
  /** Diagnostics (stderr in production); never stdout. */
  log?: LogTarget;
  /** The backoff's jitter (tests fix it). */
  random?: Random;
}

/** How the mesh behaves (js-libp2p's `init`): plain settings, each with a default. */
export interface MeshInit {
  /** Our node id; defaults to the signal client's. */
  localId?: string;
  /** Fixed ICE config, or a function read at each new link (default: env > welcome > STUN). */
  ice?: IceConfig | (() => IceConfig);
  /** Test-only: return false to forbid a direct link to that peer (no offer, answer or knock). */
  allowLink?: (peerId: string) => boolean;
  /** Re-offer delays in ms (tests shorten them); the last repeats. Default LINK_RETRY's. */
  backoffMs?: readonly number[];
  /** The most peers to hold links with (default MAX_PEERS). */
  maxPeers?: number;
  connectTimeoutMs?: number;
}

export interface LinkInfo {
  peer: string;
  state: LinkState;
  path: LinkPath | undefined;
  role: 'offerer' | 'answerer';
}

interface Slot {
  link: PeerLink | undefined;
  /** Where the next retry is in the schedule. */
  backoff: Backoff;
  retry: NodeJS.Timeout | undefined;
  /** Bumped each time the server says the peer is (again) on the topic. */
  epoch: number;
  /** The epoch at which the current link was created. */
  linkEpoch: number;
}

export class Mesh extends EventEmitter<TransportEvents> {
  readonly localId: string;
  readonly #signal: SignalClient;
  readonly #ice: () => IceConfig;
  readonly #allow: (peerId: string) => boolean;
  readonly #schedule: Schedule;
  readonly #random: Random | undefined;
  readonly #maxPeers: number;
  #capLogged = false;
  readonly #connectTimeoutMs: number | undefined;
  readonly #releaseRelays: (relayed: string[]) => Promise<void>;
  /** Releases in progress, awaited by close(). */
  readonly #releasing = new Set<Promise<void>>();
  readonly #log: Log;
  readonly #slots = new Map<string, Slot>();
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(components: MeshComponents, init: MeshInit = {}) {
    super();
    const { signal } = components;
    this.#signal = signal;
    this.localId = init.localId ?? signal.localId;
    const ice = init.ice;
    this.#ice =
      typeof ice === 'function'
        ? ice
        : ice !== undefined
          ? () => ice
          : () => resolveIceConfig({ welcome: signal.iceServers });
    this.#allow = init.allowLink ?? (() => true);
    this.#schedule = scheduleOf(init.backoffMs, LINK_RETRY);
    this.#random = components.random;
    this.#maxPeers = init.maxPeers ?? MAX_PEERS;
    this.#connectTimeoutMs = init.connectTimeoutMs;
    this.#releaseRelays = components.releaseRelays ?? (async () => {});
    // Every line of the mesh says it is papo's (the transport's stderr is shared with its parent).
    this.#log = toLog(components.log).child('papo: ');
    // Held for the mesh's whole life so node-datachannel is not torn down between two attempts.
    retainNative();

    const onPeers = (peers: string[]) => {
      // After a redial, the list is the truth: a peer that left while we were away and holds no
      // open link has left, though its goodbye went to nobody (else the room would show it online
      // for 75 s more, and its slot would count against MAX_PEERS forever). An open link is kept:
      // it works without the signal server, and its peer may still be redialling (until that link
      // closes: see the link's close handler).
      const present = new Set(peers);
      for (const [peer, slot] of [...this.#slots]) {
        if (!present.has(peer) && slot.link?.state !== 'open') this.#gone(peer);
      }
      for (const peer of peers) this.#present(peer);
    };
    const onJoined = (peer: string) => this.#present(peer);
    const onLeft = (peer: string) => this.#gone(peer);
    const onSignal = (from: string, payload: unknown) => this.#onSignal(from, payload);
    signal.on('peers', onPeers);
    signal.on('joined', onJoined);
    signal.on('left', onLeft);
    signal.on('signal', onSignal);
    this.#unsubscribe = () => {
      signal.off('peers', onPeers);
      signal.off('joined', onJoined);
      signal.off('left', onLeft);
      signal.off('signal', onSignal);
    };
    // Peers the client already knows (the mesh may be made after the join was answered).
    onPeers(signal.peers());
  }

  /** Peers with an open link. */
  neighbours(): string[] {
    const out: string[] = [];
    for (const [peer, slot] of this.#slots) if (slot.link?.state === 'open') out.push(peer);
    return out;
  }

  /** 'direct' or 'relay' for an open link, else undefined. */
  path(peerId: string): LinkPath | undefined {
    return this.#slots.get(peerId)?.link?.path();
  }

  /** Every link the mesh holds now, open or not. */
  links(): LinkInfo[] {
    const out: LinkInfo[] = [];
    for (const [peer, slot] of this.#slots) {
      const link = slot.link;
      if (link !== undefined) out.push({ peer, state: link.state, path: link.path(), role: link.role });
    }
    return out;
  }

  /** The relayed addresses of the TURN allocations that live links (open or forming) use. */
  relayedInUse(): string[] {
    const out: string[] = [];
    for (const slot of this.#slots.values()) {
      if (slot.link !== undefined && slot.link.state !== 'closed') out.push(...slot.link.relayedAddresses());
    }
    return out;
  }

  /** Sends to one neighbour; false when there is no open link or the channel refused it. */
  send(peerId: string, data: Uint8Array): boolean {
    return this.#slots.get(peerId)?.link?.send(data) ?? false;
  }

  /** Sends to every neighbour but `exceptPeerId`; returns how many took it. */
  broadcast(data: Uint8Array, exceptPeerId?: string): number {
    let sent = 0;
    for (const peer of this.neighbours()) {
      if (peer !== exceptPeerId && this.send(peer, data)) sent += 1;
    }
    return sent;
  }

  /**
   * Closes the current link to `peerId` as if it had failed: it is re-made by the usual rules
   * (re-offer or knock with backoff while the peer is on the topic). For a link that misbehaves.
   */
  async closeLink(peerId: string): Promise<void> {
    await this.#slots.get(peerId)?.link?.close();
  }

  /** Closes every link and stops reacting to the signal client (which the caller closes). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    const closing: Promise<void>[] = [];
    for (const slot of this.#slots.values()) {
      clearTimeout(slot.retry);
      if (slot.link !== undefined) closing.push(slot.link.close());
    }
    await Promise.all(closing);
    this.#slots.clear();
    await Promise.all([...this.#releasing]);
    releaseNative();
  }

  #isOfferer(peer: string): boolean {
    return this.localId < peer;
  }

  #slot(peer: string): Slot {
    let slot = this.#slots.get(peer);
    if (slot === undefined) {
      const backoff = new Backoff(this.#schedule, this.#random);
      slot = { link: undefined, backoff, retry: undefined, epoch: 0, linkEpoch: -1 };
      this.#slots.set(peer, slot);
    }
    return slot;
  }

  /** The server says `peer` is on the topic (in a peers list, or joined). */
  #present(peer: string): void {
    if (this.#closed || peer === this.localId || !this.#allow(peer)) return;
    if (!this.#slots.has(peer) && !this.#roomFor(peer)) return;
    const slot = this.#slot(peer);
    slot.epoch += 1;
    const link = slot.link;
    if (link !== undefined && link.state !== 'closed') return; // keep what works or is forming
    // A fresh appearance starts the backoff over.
    slot.backoff.reset();
    clearTimeout(slot.retry);
    slot.retry = undefined;
    if (this.#isOfferer(peer)) this.#offer(peer);
    else {
      this.#knock(peer);
      // Keeps knocking (with backoff) until an offer makes a link.
      this.#scheduleRetry(peer);
    }
  }

  /** False (and logged once) when the mesh already holds MAX_PEERS peers. */
  #roomFor(peer: string): boolean {
    if (this.#slots.size < this.#maxPeers) return true;
    if (!this.#capLogged) {
      this.#capLogged = true;
      this.#log(`not linking to ${shortId(peer)}: already ${this.#maxPeers} peers on this topic`);
    }
    return false;
  }

  #gone(peer: string): void {
    this.emit('peer-left', peer);
    this.#forget(peer);
  }

  /** Drops the peer's slot: its retry timer and its link (open or forming). */
  #forget(peer: string): void {
    const slot = this.#slots.get(peer);
    if (slot === undefined) return;
    this.#slots.delete(peer);
    clearTimeout(slot.retry);
    void slot.link?.close();
  }

  #offer(peer: string): void {
    const slot = this.#slot(peer);
    clearTimeout(slot.retry);
    slot.retry = undefined;
    this.#detach(slot);
    const link = this.#newLink(peer, 'offerer', undefined);
    if (link === undefined) {
      this.#scheduleRetry(peer);
      return;
    }
    slot.link = link;
    slot.linkEpoch = slot.epoch;
  }

  /** Closes the slot's link as replaced: detached first, so its close handler schedules nothing. */
  #detach(slot: Slot): void {
    const old = slot.link;
    slot.link = undefined;
    void old?.close();
  }

  #knock(peer: string): void {
    this.#signal.send(peer, KNOCK);
  }

  #newLink(peer: string, role: 'offerer' | 'answerer', linkId: string | undefined): PeerLink | undefined {
    let link: PeerLink;
    try {
      link = new PeerLink({
        localId: this.localId,
        remoteId: peer,
        role,
        ...(linkId !== undefined ? { linkId } : {}),
        ice: this.#ice(),
        sendSignal: (signal: LinkSignal) => {
          this.#signal.send(peer, signal);
        },
        ...(this.#connectTimeoutMs !== undefined ? { connectTimeoutMs: this.#connectTimeoutMs } : {}),
        onIceSkip: (url, why) => this.#log(`ICE server ${url} skipped: ${why}`),
      });
    } catch (err) {
      this.#log(`cannot create a link to ${shortId(peer)}: ${messageOf(err)}`);
      return undefined;
    }
    let opened = false;
    link.on('open', () => {
      if (this.#slots.get(peer)?.link !== link) return;
      opened = true;
      this.#slot(peer).backoff.reset();
      this.emit('link-open', peer);
    });
    link.on('message', (data) => {
      if (this.#slots.get(peer)?.link === link) this.emit('link-message', peer, data);
    });
    link.on('close', (reason) => {
      this.#release(link);
      const slot = this.#slots.get(peer);
      const current = slot?.link === link;
      if (current && slot !== undefined) slot.link = undefined;
      if (opened) this.emit('link-close', peer);
      if (!current || this.#closed) return;
      this.#log(`link to ${shortId(peer)} closed (${reason})`);
      // A link kept across a redial for a peer no longer on the topic: now it has left.
      if (this.#signal.joined && !this.#signal.hasPeer(peer)) this.#gone(peer);
      else this.#scheduleRetry(peer);
    });
    return link;
  }

  /** Gives the link's allocations back once node-datachannel has stopped using them. */
  #release(link: PeerLink): void {
    const releasing = link
      .close()
      .then(() => this.#releaseRelays(link.relayedAddresses()))
      .catch((err: unknown) => this.#log(`could not release TURN allocations: ${messageOf(err)}`))
      .finally(() => this.#releasing.delete(releasing));
    this.#releasing.add(releasing);
  }

  #scheduleRetry(peer: string): void {
    const slot = this.#slots.get(peer);
    if (slot === undefined || this.#closed || slot.retry !== undefined) return;
    const delay = slot.backoff.next();
    slot.retry = setTimeout(() => {
      slot.retry = undefined;
      if (this.#closed || this.#slots.get(peer) !== slot) return;
      if (slot.link !== undefined && slot.link.state !== 'closed') return;
      // Only while the peer is on the topic; when it (re)appears, #present starts over.
      if (!this.#signal.hasPeer(peer)) return;
      if (this.#isOfferer(peer)) this.#offer(peer);
      else {
        this.#knock(peer);
        // No offer may come (the offerer may be gone without a `left` yet): keep knocking.
        this.#scheduleRetry(peer);
      }
    }, delay);
  }

  #onSignal(from: string, payload: unknown): void {
    if (this.#closed || !this.#allow(from)) return;
    if (!this.#slots.has(from) && !this.#roomFor(from)) return;
    const signal = parseMeshSignal(payload);
    if (signal === undefined) {
      this.#log(`dropped a malformed link signal from ${shortId(from)}`);
      return;
    }
    if (signal.k === 'knock') {
      this.#onKnock(from);
      return;
    }
    const slot = this.#slot(from);
    if (signal.k === 'offer') {
      if (this.#isOfferer(from)) return; // the rule says we offer to them; ignore a glaring offer
      if (slot.link?.linkId === signal.link) return; // a duplicate
      // A new attempt from the offerer supersedes whatever we had (it restarted or gave up on it).
      clearTimeout(slot.retry);
      slot.retry = undefined;
      this.#detach(slot);
      const link = this.#newLink(from, 'answerer', signal.link);
      if (link === undefined) return;
      slot.link = link;
      slot.linkEpoch = slot.epoch;
      link.handleSignal(signal);
      return;
    }
    slot.link?.handleSignal(signal);
  }

  /** The answerer holds no link to us. */
  #onKnock(from: string): void {
    if (!this.#isOfferer(from)) return;
    const slot = this.#slot(from);
    const link = slot.link;
    // Our offer in progress was made after we last saw them arrive: it is on its way to the very
    // instance that knocked (the knock crossed it), so a new offer would only cost a round.
    if (link !== undefined && link.state === 'connecting' && slot.linkEpoch === slot.epoch) return;
    slot.backoff.reset();
    this.#offer(from);
  }
}
