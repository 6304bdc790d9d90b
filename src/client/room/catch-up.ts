// Catch-up through other members (ADR 0063): a member that comes back gets what it missed even
// when the sender is gone, from any member that stored it. When a link opens (and every 30 s), each side sends a
// `have` digest of the messages it holds (ids, and since when it can speak for); the other answers
// with `missed` frames for the messages the digest lacks that the peer may read (no `to`, or `to`
// that peer). Both frames stay on the link (never forwarded). The receiver stores and acks a
// `missed` message as any other, so the original sender's outbox clears when that ack reaches it.
//
// Bounds (docs/delivery.md, "Catch-up"): the last CATCH_UP_MESSAGES messages of the last
// CATCH_UP_WINDOW_MS, at most CATCH_UP_HELD_BYTES of bodies, are held in memory; a link's digest is
// answered at most every 25 s, with at most CATCH_UP_MESSAGES messages and CATCH_UP_LINK_BYTES of bodies; and
// all links together get at most CATCH_UP_MESSAGES_PER_SECOND and CATCH_UP_BYTES_PER_SECOND.
import type { HaveFrame } from '../wire/frames.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import { sameName } from '../wire/names.js';

/** Messages held for catch-up, and ids in a digest. */
export const CATCH_UP_MESSAGES = 200;
/** How far back catch-up reaches. */
export const CATCH_UP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Bodies held in memory for catch-up, in UTF-8 bytes (the oldest go first past it). */
export const CATCH_UP_HELD_BYTES = 4 * 1024 * 1024;
/** Bodies sent on one link in answer to its digest. */
export const CATCH_UP_LINK_BYTES = 1024 * 1024;
/** Catch-up messages sent a second, over all links together (a neighbour takes 200 frames/s). */
export const CATCH_UP_MESSAGES_PER_SECOND = 50;
/** Catch-up bodies sent a second, over all links together. */
export const CATCH_UP_BYTES_PER_SECOND = 256 * 1024;
/** Log entries read at start to find the recent messages (they include `delivered` lines). */
export const CATCH_UP_LOG_ENTRIES = 1000;
/** Messages waiting to go out, over all links; past it a digest's answer is cut. */
const QUEUE_LIMIT = 1000;
const TICK_MS = 100;

function bodyBytes(m: Envelope): number {
  return Buffer.byteLength(m.body, 'utf8');
}

/** The recent messages this member stored or sent, oldest first, within the bounds above. */
export class RecentMessages {
  #byId = new Map<string, Envelope>();
  #bytes = 0;
  #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Fills from log entries (oldest first): the `in` and `out` messages. */
  load(entries: readonly LogEntry[]): void {
    for (const e of entries) if (e.ev === 'in' || e.ev === 'out') this.add(e.msg);
  }

  add(msg: Envelope): void {
    if (this.#byId.has(msg.id)) return;
    this.#byId.set(msg.id, msg);
    this.#bytes += bodyBytes(msg);
    this.#trim();
  }

  /** Held messages still in the window, in the order they were stored or sent. */
  messages(): Envelope[] {
    const oldest = this.#now() - CATCH_UP_WINDOW_MS;
    return [...this.#byId.values()].filter((m) => m.ts >= oldest);
  }

  #trim(): void {
    for (const [id, m] of this.#byId) {
      if (this.#byId.size <= CATCH_UP_MESSAGES && this.#bytes <= CATCH_UP_HELD_BYTES) break;
      this.#byId.delete(id);
      this.#bytes -= bodyBytes(m);
    }
  }
}

/**
 * The digest a member sends on a new link: the ids it holds, and `since`, the earliest message
 * time it speaks for (when it joined the room, 24 h ago, or its oldest held message when it holds
 * the most it can: older messages are assumed held, not missed).
 */
export function digestOf(
  held: readonly Envelope[],
  memberSince: number,
  now: number,
): Omit<HaveFrame, 'node'> {
  let since = Math.max(memberSince, now - CATCH_UP_WINDOW_MS, 0);
  if (held.length >= CATCH_UP_MESSAGES) since = Math.max(since, Math.min(...held.map((m) => m.ts)));
  return { t: 'have', since: Math.floor(since), ids: held.map((m) => m.id) };
}

/**
 * What to send a peer in answer to its digest: held messages it lacks, from its `since` on, that
 * it may read (no `to`, or `to` = its name) and that its node did not send, in stored order, within the
 * per-link bounds. `peerName` is unknown when its hello has not arrived: broadcasts only then.
 */
export function missingFor(
  held: readonly Envelope[],
  have: Pick<HaveFrame, 'since' | 'ids'>,
  peer: { node: string; name: string | undefined },
): Envelope[] {
  const has = new Set(have.ids);
  const out: Envelope[] = [];
  let bytes = 0;
  for (const m of held) {
    if (has.has(m.id) || m.ts < have.since || m.node === peer.node) continue;
    if (m.to !== undefined && (peer.name === undefined || !sameName(m.to, peer.name))) continue;
    const size = bodyBytes(m);
    if (out.length >= CATCH_UP_MESSAGES || bytes + size > CATCH_UP_LINK_BYTES) break;
    out.push(m);
    bytes += size;
  }
  return out;
}

/**
 * Sends catch-up messages at a bounded rate over all links together: a token bucket of messages
 * and one of bytes, refilled every 100 ms. `send` returns false when the link is gone.
 */
export class CatchUpPacer {
  #queue: { peer: string; msg: Envelope }[] = [];
  #send: (peer: string, msg: Envelope) => void;
  #now: () => number;
  #messages = CATCH_UP_MESSAGES_PER_SECOND;
  #bytes = CATCH_UP_BYTES_PER_SECOND;
  #at: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(send: (peer: string, msg: Envelope) => void, now: () => number = Date.now) {
    this.#send = send;
    this.#now = now;
    this.#at = now();
  }

  /** Queues messages for a peer; returns how many were queued (the rest is past the queue's cap). */
  enqueue(peer: string, msgs: readonly Envelope[]): number {
    if (this.#closed) return 0;
    const room = Math.max(0, QUEUE_LIMIT - this.#queue.length);
    const taken = msgs.slice(0, room);
    for (const msg of taken) this.#queue.push({ peer, msg });
    this.#pump();
    return taken.length;
  }

  /** Forgets what was queued for a peer whose link closed. */
  drop(peer: string): void {
    this.#queue = this.#queue.filter((q) => q.peer !== peer);
  }

  get queued(): number {
    return this.#queue.length;
  }

  close(): void {
    this.#closed = true;
    this.#queue = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #pump(): void {
    if (this.#closed) return;
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#at) / 1000;
    this.#at = now;
    this.#messages = Math.min(
      CATCH_UP_MESSAGES_PER_SECOND,
      this.#messages + elapsed * CATCH_UP_MESSAGES_PER_SECOND,
    );
    this.#bytes = Math.min(CATCH_UP_BYTES_PER_SECOND, this.#bytes + elapsed * CATCH_UP_BYTES_PER_SECOND);
    while (this.#queue.length > 0) {
      const next = this.#queue[0] as { peer: string; msg: Envelope };
      const size = bodyBytes(next.msg);
      // A message larger than a second's bytes goes once the bucket is full.
      if (this.#messages < 1 || (this.#bytes < size && this.#bytes < CATCH_UP_BYTES_PER_SECOND)) break;
      this.#queue.shift();
      this.#messages -= 1;
      this.#bytes -= size;
      this.#send(next.peer, next.msg);
    }
    if (this.#queue.length > 0 && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, TICK_MS);
      this.#timer.unref();
    }
  }
}
