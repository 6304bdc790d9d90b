// Flooding over the mesh (docs/protocol.md, "Delivery", on forwarding): a frame is
// forwarded once to the other neighbours, so a member reachable only through another member still
// gets everything. Frames are told apart by their nonce, random per seal (room-crypto.ts), so a
// frame that comes back through another neighbour is neither handled nor forwarded again.
// What a neighbour can make this member do is bounded (ADR 0062): frames per neighbour per second,
// past which its frames are dropped unopened (their senders re-send them later, docs/delivery.md).

import { type Log, type LogTarget, shortId, toLog } from '../log.js';
import { NONCE_BYTES } from '../wire/room-crypto.js';

/** How many forwarded-frame fingerprints to remember (enough for minutes of busy traffic). */
export const SEEN_FRAMES_LIMIT = 4096;
/**
 * Frames a neighbour may send per second, and in a burst (an outbox re-sent on connect is a
 * burst); past them its frames are dropped unopened, and re-sent later by their senders.
 */
export const FRAMES_PER_SECOND = 200;
export const FRAME_BURST = 1000;

/** The links the forwarding sends on (a subset of the node's transport). */
export interface ForwardingLinks {
  send(peer: string, data: Uint8Array): boolean;
  neighbours(): string[];
}

/** Frames a neighbour may still send now (a token bucket). */
interface FrameBudget {
  tokens: number;
  at: number;
}

/** The fingerprint of a sealed frame: its nonce, in hex. */
export function fingerprintOf(sealed: Uint8Array): string {
  return Buffer.from(sealed.subarray(0, NONCE_BYTES)).toString('hex');
}

/** Sends, forwards and admits sealed frames: duplicate suppression and per-neighbour budgets. */
export class Forwarding {
  #links: ForwardingLinks;
  #now: () => number;
  #log: Log;
  /** Counts frames dropped for a spent budget (the node's `dropped.flood`). */
  #onFlood: () => number;
  #seenFrames = new Set<string>();
  #budgets = new Map<string, FrameBudget>();

  constructor(links: ForwardingLinks, options: { now: () => number; log: LogTarget; onFlood: () => number }) {
    this.#links = links;
    this.#now = options.now;
    this.#log = toLog(options.log);
    this.#onFlood = options.onFlood;
  }

  /** Sends our own frame to one neighbour; it is remembered, so it is not handled if it comes back. */
  sendTo(peer: string, sealed: Uint8Array): void {
    this.#remember(fingerprintOf(sealed));
    this.#links.send(peer, sealed);
  }

  /** Sends our own frame to every neighbour. */
  broadcast(sealed: Uint8Array): void {
    this.#remember(fingerprintOf(sealed));
    for (const peer of this.#links.neighbours()) this.#links.send(peer, sealed);
  }

  /**
   * Whether a frame from `peer` is worth opening: within its budget, long enough to hold a nonce,
   * and not seen before. Returns its fingerprint, or undefined to drop it.
   */
  admit(peer: string, data: Uint8Array): string | undefined {
    if (data.length < NONCE_BYTES) return undefined;
    if (!this.#spend(peer)) return undefined;
    const fingerprint = fingerprintOf(data);
    if (this.#seenFrames.has(fingerprint)) return undefined;
    return fingerprint;
  }

  /** A frame that opened: remembered, and (unless it stays on its link) forwarded once. */
  accept(peer: string, data: Uint8Array, fingerprint: string, forward: boolean): void {
    this.#remember(fingerprint);
    if (!forward) return;
    for (const other of this.#links.neighbours()) {
      if (other !== peer) this.#links.send(other, data);
    }
  }

  /** A link closed: its budget starts afresh if it opens again. */
  drop(peer: string): void {
    this.#budgets.delete(peer);
  }

  /** Takes one frame from `peer`'s budget; false (and counted) when it is spent. */
  #spend(peer: string): boolean {
    const now = this.#now();
    const budget = this.#budgets.get(peer) ?? { tokens: FRAME_BURST, at: now };
    budget.tokens = Math.min(FRAME_BURST, budget.tokens + ((now - budget.at) * FRAMES_PER_SECOND) / 1000);
    budget.at = now;
    this.#budgets.set(peer, budget);
    if (budget.tokens < 1) {
      if (this.#onFlood() % 1000 === 0)
        this.#log(`dropping frames from ${shortId(peer)}: more than ${FRAMES_PER_SECOND} a second`);
      return false;
    }
    budget.tokens -= 1;
    return true;
  }

  #remember(fingerprint: string): void {
    this.#seenFrames.add(fingerprint);
    if (this.#seenFrames.size > SEEN_FRAMES_LIMIT) {
      const oldest = this.#seenFrames.values().next().value;
      if (oldest !== undefined) this.#seenFrames.delete(oldest);
    }
  }
}
