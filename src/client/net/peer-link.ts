// One WebRTC link to one other member: a node-datachannel PeerConnection (native API, not the
// W3C polyfill; ADR 0030) with one reliable, ordered data channel, set up with trickle ICE through
// whatever carries its signals (the mesh passes them through the sealed signal client).
//
// A link is one attempt: it goes connecting -> open -> closed and is never reused. Every signal
// carries the attempt's link id (chosen by the offerer), so signals of an older attempt that are
// still in flight cannot disturb a newer one.

import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import nodeDataChannel, { type DataChannel, type PeerConnection } from 'node-datachannel';
import { messageOf } from '../errors.js';
import { shortId } from '../log.js';
import type { LinkPath } from './health.js';
import { type IceConfig, nativeRtcConfig } from './ice-config.js';
import { LINK_ID, type LinkSignal } from './link-signal.js';
import { relayedAddressOf } from './turn-release.js';

export type LinkRole = 'offerer' | 'answerer';
export type LinkState = 'connecting' | 'open' | 'closed';

/** The label of papo's one data channel; any other channel the peer opens is closed. */
export const CHANNEL_LABEL = 'papo/v1';
/** A link not open after this long is given up (the mesh re-offers with backoff). */
export const CONNECT_TIMEOUT_MS = 20_000;
/** How long close() waits for the native side to report closed before moving on. */
const CLOSE_WAIT_MS = 2000;
/**
 * While a link connects, how often it reads its selected pair: that call takes libjuice's
 * connection lock, which the native deadlock of ADR 0055 holds for good, so a frozen library
 * blocks this thread within a second and the transport's supervisor (ADR 0057) starts it again
 * within its 5 s, instead of only when the 20 s connect timeout calls close().
 */
export const CONNECTING_PROBE_MS = 1000;

export function newLinkId(): string {
  return randomBytes(8).toString('hex');
}

// --- native lifetime --------------------------------------------------------------------------
// node-datachannel keeps native threads and thread-safe callbacks; an open link holds the event
// loop (closed ones do not, with 0.33.4). cleanup() is the last sweep, and it closes every
// PeerConnection in the process, so it may only run when nothing uses the library: users count
// themselves here.

let nativeUsers = 0;
let cleanupScheduled = false;
let autoCleanup = true;

/**
 * For processes that end with process.exit() (papo mcp, papo say/status): skip the automatic
 * cleanup(). It blocks the event loop for up to 10 s while closed peer connections wait for the
 * garbage collector, which would blow Claude Code's shutdown budget (SIGKILL 500 ms after SIGINT).
 */
export function disableNativeCleanup(): void {
  autoCleanup = false;
}

/** Registers a user of node-datachannel (a link, a mesh); pair with releaseNative(). */
export function retainNative(): void {
  nativeUsers += 1;
}

/** Drops a user; when none is left, node-datachannel's cleanup() runs so the process can exit. */
export function releaseNative(): void {
  nativeUsers = Math.max(0, nativeUsers - 1);
  if (nativeUsers > 0 || cleanupScheduled || !autoCleanup) return;
  cleanupScheduled = true;
  // Deferred: never from inside a native callback, and only if nobody re-acquired meanwhile.
  setImmediate(() => {
    cleanupScheduled = false;
    if (nativeUsers === 0) {
      try {
        nodeDataChannel.cleanup();
      } catch {
        // A timeout in cleanup leaves nothing for us to do; the process exits regardless.
      }
    }
  });
}

// --- the link ---------------------------------------------------------------------------------

export interface PeerLinkOptions {
  localId: string;
  remoteId: string;
  role: LinkRole;
  /** The attempt's id: the offerer makes one up (default), the answerer takes the offer's. */
  linkId?: string;
  ice: IceConfig;
  /** Carries a signal to the peer; may drop it (the connect timeout then ends the attempt). */
  sendSignal: (signal: LinkSignal) => void;
  connectTimeoutMs?: number;
  /** Where to say that an ICE URL was skipped (default: nowhere). */
  onIceSkip?: (url: string, why: string) => void;
}

export interface PeerLinkEvents {
  open: [];
  message: [data: Uint8Array];
  /** Emitted once; `reason` says why (local close, remote close, failed, timeout...). */
  close: [reason: string];
}

export class PeerLink extends EventEmitter<PeerLinkEvents> {
  readonly localId: string;
  readonly remoteId: string;
  readonly role: LinkRole;
  readonly linkId: string;
  readonly #send: (signal: LinkSignal) => void;
  /** PAPO_ICE_POLICY=relay: a link whose own side is not relayed is refused (see #opened). */
  readonly #relayOnly: boolean;
  readonly #pc: PeerConnection;
  #dc: DataChannel | undefined;
  /** Every data channel this link touched, so none is left open (they pin the event loop). */
  readonly #channels = new Set<DataChannel>();
  #state: LinkState = 'connecting';
  #path: LinkPath | undefined;
  #remoteDescribed = false;
  /** Relayed addresses of our own relay candidates: the allocations to give back (ADR 0058). */
  readonly #relayed = new Set<string>();
  readonly #pendingCandidates: { cand: string; mid: string }[] = [];
  #connectTimer: NodeJS.Timeout | undefined;
  #probeTimer: NodeJS.Timeout | undefined;
  #closedPromise: Promise<void> | undefined;
  #nativeClosed: (() => void) | undefined;

  constructor(options: PeerLinkOptions) {
    super();
    this.localId = options.localId;
    this.remoteId = options.remoteId;
    this.role = options.role;
    this.linkId = options.linkId ?? newLinkId();
    if (!LINK_ID.test(this.linkId)) throw new TypeError('linkId must be 16 lower-case hex characters');
    this.#send = options.sendSignal;
    this.#relayOnly = options.ice.policy === 'relay';
    const config = nativeRtcConfig(options.ice, options.onIceSkip);
    this.#pc = new nodeDataChannel.PeerConnection(`papo-${shortId(this.remoteId)}`, config);
    retainNative();

    this.#pc.onLocalDescription((sdp, type) => {
      if (this.#state === 'closed') return;
      if (type === 'offer' || type === 'answer') this.#send({ k: type, link: this.linkId, sdp });
    });
    this.#pc.onLocalCandidate((cand, mid) => {
      const relayed = relayedAddressOf(cand);
      if (relayed !== undefined) this.#relayed.add(relayed);
      if (this.#state === 'closed') return;
      this.#send({ k: 'cand', link: this.linkId, cand, mid });
    });
    this.#pc.onStateChange((state) => {
      if (state === 'closed') this.#nativeClosed?.();
      // libdatachannel reports 'disconnected' when ICE consent is lost; it does not come back, so a
      // new attempt (with backoff, by the mesh) is the way forward.
      if (state === 'failed' || state === 'disconnected' || state === 'closed')
        this.#end(`peer connection ${state}`);
    });
    this.#pc.onDataChannel((dc) => {
      this.#channels.add(dc);
      if (this.role !== 'answerer' || this.#dc !== undefined || dc.getLabel() !== CHANNEL_LABEL) {
        this.#closeChannel(dc);
        return;
      }
      this.#adopt(dc);
      // An incoming channel is already open when it is announced.
      if (dc.isOpen()) this.#opened();
    });

    this.#connectTimer = setTimeout(
      () => this.#end('timeout'),
      options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    );
    this.#probeTimer = setInterval(() => this.#readPath(), CONNECTING_PROBE_MS);
    if (this.role === 'offerer') {
      // Creating the channel makes the offer (auto-negotiation); onLocalDescription sends it.
      const dc = this.#pc.createDataChannel(CHANNEL_LABEL);
      this.#channels.add(dc);
      this.#adopt(dc);
      dc.onOpen(() => this.#opened());
    }
  }

  get state(): LinkState {
    return this.#state;
  }

  /** 'direct' or 'relay' from the selected candidate pair while open; undefined otherwise. */
  path(): LinkPath | undefined {
    if (this.#state !== 'open') return undefined;
    this.#path = this.#readPath() ?? this.#path;
    return this.#path;
  }

  /** The relayed addresses ("ip:port") of this link's TURN allocations, as its candidates say. */
  relayedAddresses(): string[] {
    return [...this.#relayed];
  }

  /** Feeds a signal from the peer. Signals of another attempt are ignored (returns false). */
  handleSignal(signal: LinkSignal): boolean {
    if (signal.link !== this.linkId || this.#state === 'closed') return false;
    try {
      if (signal.k === 'offer' || signal.k === 'answer') {
        const expected = this.role === 'answerer' ? 'offer' : 'answer';
        if (signal.k !== expected || this.#remoteDescribed) return false;
        // The offerer becomes the DTLS client: we take its `actpass` as `active`, so we answer
        // `passive`. Left to itself libdatachannel makes the answerer the client, whose first
        // ClientHello often reaches an offerer whose ICE is not connected yet; it is dropped and
        // DTLS retransmits only after 1 s. Measured: 13 of 20 loopback links took ~1 s that way,
        // 0 of 20 this way (docs/transport.md).
        const sdp =
          signal.k === 'offer' ? signal.sdp.replace(/a=setup:actpass/g, 'a=setup:active') : signal.sdp;
        this.#pc.setRemoteDescription(sdp, signal.k);
        this.#remoteDescribed = true;
        for (const c of this.#pendingCandidates.splice(0)) this.#pc.addRemoteCandidate(c.cand, c.mid);
        return true;
      }
      if (!this.#remoteDescribed) {
        // libdatachannel refuses candidates before the remote description; keep them until then.
        if (this.#pendingCandidates.length < 64)
          this.#pendingCandidates.push({ cand: signal.cand, mid: signal.mid });
        return true;
      }
      this.#pc.addRemoteCandidate(signal.cand, signal.mid);
      return true;
    } catch (err) {
      // A description or candidate libdatachannel cannot parse ends this attempt, not the process.
      this.#end(`bad ${signal.k}: ${messageOf(err)}`);
      return false;
    }
  }

  /** Sends one binary message; false when the link is not open or the message was refused. */
  send(data: Uint8Array): boolean {
    const dc = this.#dc;
    if (this.#state !== 'open' || dc === undefined) return false;
    try {
      return dc.sendMessageBinary(data);
    } catch {
      return false;
    }
  }

  /** Closes the link; resolves once node-datachannel reports it closed (or after a short wait). */
  close(): Promise<void> {
    this.#end('closed locally');
    return this.#closedPromise ?? Promise.resolve();
  }

  #adopt(dc: DataChannel): void {
    this.#dc = dc;
    dc.onMessage((msg) => {
      // node-datachannel calls onOpen and onMessage from queues of their own: when this process
      // is busy as the channel opens, the peer's first message (its hello, sent on its own open)
      // is called before our open, and was dropped. A message on the channel says it is open.
      if (this.#state === 'connecting') this.#opened();
      if (this.#state !== 'open') return;
      const data =
        typeof msg === 'string'
          ? new TextEncoder().encode(msg)
          : msg instanceof ArrayBuffer
            ? new Uint8Array(msg)
            : new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength);
      this.emit('message', data);
    });
    dc.onClosed(() => this.#end('data channel closed'));
    dc.onError((err) => this.#end(`data channel error: ${err}`));
  }

  #opened(): void {
    if (this.#state !== 'connecting') return;
    if (this.#relayOnly && !this.#locallyRelayed()) {
      // libjuice hides non-relay candidates from the peer under the relay policy, but may still
      // select a pair through its server-reflexive address (seen on loopback in 3 runs of 7): on
      // a real network that would send from the member's own address, which is what relay-only
      // networks forbid. Refuse the link; the mesh tries again.
      this.#end('not relayed although PAPO_ICE_POLICY=relay');
      return;
    }
    this.#state = 'open';
    clearTimeout(this.#connectTimer);
    clearInterval(this.#probeTimer);
    this.#path = this.#readPath();
    this.emit('open');
  }

  #locallyRelayed(): boolean {
    try {
      return this.#pc.getSelectedCandidatePair()?.local.type === 'relay';
    } catch {
      return false;
    }
  }

  #readPath(): LinkPath | undefined {
    try {
      const pair = this.#pc.getSelectedCandidatePair();
      if (pair === null) return undefined;
      return pair.local.type === 'relay' || pair.remote.type === 'relay' ? 'relay' : 'direct';
    } catch {
      return undefined;
    }
  }

  #closeChannel(dc: DataChannel): void {
    try {
      dc.close();
    } catch {
      // Already closed.
    }
  }

  #end(reason: string): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#path = undefined;
    clearTimeout(this.#connectTimer);
    clearInterval(this.#probeTimer);
    this.#closedPromise = new Promise<void>((resolve) => {
      const timer = setTimeout(done, CLOSE_WAIT_MS);
      this.#nativeClosed = done;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    }).then(() => {
      this.#nativeClosed = undefined;
      releaseNative();
    });
    for (const dc of this.#channels) this.#closeChannel(dc);
    // Always close(), even when the native state already reads 'closed': a wrapper that was never
    // closed by us makes node-datachannel's cleanup() hang (seen with 0.33.4).
    try {
      this.#pc.close();
    } catch {
      this.#nativeClosed?.();
    }
    this.emit('close', reason);
  }
}
