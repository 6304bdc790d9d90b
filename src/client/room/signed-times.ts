// Signs of life that cannot be sent again (ADR 0093). Frames are told apart by the seal's nonce
// (forwarding.ts), but every member holds the room key and can seal a frame it saw again under a
// new nonce: a hello captured while a member was here, sealed again after it left, showed it online
// for as long as the copies kept coming, and brought back a `review` flag its person had turned off.
// So a hello carries the time its sender signed it (`ts`), and a hello, or a message as a sign that
// its sender is alive, counts only when that time is
//   - within SIGNED_TIME_WINDOW_MS of our clock, either way: no copy outlives the window, even at a
//     member that never heard the original; and
//   - later than the last one counted from the same key: a copy of anything heard, or of anything
//     older, is refused at once, whatever the two clocks say.
// The window is the signal seal's (SIGNAL_WINDOW_MS, net/signal-seal.ts): two members whose clocks
// are further apart cannot link at all, so it asks nothing of clocks that linking did not already.
// Our own times only move forwards, so two frames signed within one millisecond are still in order.

import { MAX_KNOWN_PEERS } from './presence.js';

/** How far a signed time may be from our clock, either way (the signal seal's window). */
export const SIGNED_TIME_WINDOW_MS = 60_000;
/** Keys whose last time is remembered, at most (the one heard from longest ago goes first). */
export const MAX_SIGNED_TIMES = MAX_KNOWN_PEERS * 4;

export class SignedTimes {
  #now: () => number;
  /** The last time we signed. */
  #signed = 0;
  /** The last time counted from each key, the key heard from longest ago first. */
  #newest = new Map<string, number>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** The time for a frame we sign: our clock, and later than any time we signed before. */
  next(): number {
    this.#signed = Math.max(this.#now(), this.#signed + 1);
    return this.#signed;
  }

  /**
   * Whether a frame `node` signed at `ts` shows that it is alive now: within the window of our
   * clock and later than the last one counted from that key (then it is the last one).
   */
  fresh(node: string, ts: number): boolean {
    if (Math.abs(this.#now() - ts) > SIGNED_TIME_WINDOW_MS) return false;
    if (ts <= (this.#newest.get(node) ?? Number.NEGATIVE_INFINITY)) return false;
    this.#newest.delete(node);
    this.#newest.set(node, ts);
    // A flood of new keys forgets the quietest first: a key forgotten is open to a copy of its
    // last hello only until that hello leaves the window.
    if (this.#newest.size > MAX_SIGNED_TIMES) this.#newest.delete(this.#newest.keys().next().value as string);
    return true;
  }
}
