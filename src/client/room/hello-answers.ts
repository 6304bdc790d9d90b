// When this member answers the others' hellos (ADR 0062, "answers and writes coalesced"): a
// member's first hello is answered with our hello (and, for a durable newcomer, the outbox again:
// it may be the recipient of something queued), so a newcomer learns about us without waiting for
// the 30-s heartbeat. Answers go out at once while a budget of five lasts, refilled at one a
// second; past it, the newcomers that come meanwhile share one answer. A person's `papo say`
// runs, seconds apart, are answered at once; a flood of forged hellos gets one answer a second.
// A say run's ephemeral hello is answered again after half a second: say runs share one key
// (ADR 0064), and the copies of one hello (direct and forwarded) come within that time.

import type { HelloFrame } from '../wire/frames.js';
import type { Clock } from './clock.js';
import { MAX_KNOWN_PEERS } from './presence.js';

/** Answers at once, at most (the budget's size). */
export const HELLO_ANSWER_BURST = 5;
/** Past the burst, one answer per this long. */
export const HELLO_ANSWER_INTERVAL_MS = 1_000;
/** An ephemeral member's hello is answered again after this long. */
export const EPHEMERAL_REANSWER_MS = 500;
/** Nodes whose first hello was answered, remembered at most (then forgotten all at once). */
const MAX_ANSWERED = MAX_KNOWN_PEERS * 4;

export class HelloAnswers {
  #clock: Clock;
  #answer: (resendOutbox: boolean) => void;
  /** When each node's first hello was answered (an ephemeral one's again after a while). */
  #answered = new Map<string, number>();
  /** Answers we may still give now (a token bucket). */
  #tokens = HELLO_ANSWER_BURST;
  #at = 0;
  /** The answer waiting for the budget to refill, shared by every newcomer until it goes out. */
  #pending: { cancel: () => void; resendOutbox: boolean } | undefined;
  #closed = false;

  /** `answer` broadcasts our hello and, with `resendOutbox`, the outbox to every neighbour. */
  constructor(clock: Clock, answer: (resendOutbox: boolean) => void) {
    this.#clock = clock;
    this.#answer = answer;
  }

  /**
   * A hello from a member heard (or from an ephemeral run, which is answered even when it does not
   * hold its name, so it learns who is here): answered if it is the node's first, or an ephemeral
   * node's after EPHEMERAL_REANSWER_MS.
   */
  hello(hello: Pick<HelloFrame, 'node' | 'ephemeral'>): void {
    const now = this.#clock.now();
    const answered = this.#answered.get(hello.node);
    // A person's say runs keep one key under a new peer id each (ADR 0064), so the goodbye of one
    // run does not name the key: an ephemeral hello is answered again once a while has passed.
    if (answered !== undefined && (!hello.ephemeral || now - answered < EPHEMERAL_REANSWER_MS)) return;
    this.#answered.set(hello.node, now);
    if (this.#answered.size > MAX_ANSWERED) this.#answered.clear();
    this.#request(!hello.ephemeral);
  }

  /** `node` left the room's topic: if it comes back, its first hello is answered again. */
  left(node: string): void {
    this.#answered.delete(node);
  }

  /** No answer goes out from now on (a pending one is dropped). */
  close(): void {
    this.#closed = true;
    this.#pending?.cancel();
    this.#pending = undefined;
  }

  /** At once while the budget lasts, else when it next refills (one answer for all meanwhile). */
  #request(resendOutbox: boolean): void {
    if (this.#pending) {
      this.#pending.resendOutbox ||= resendOutbox;
      return;
    }
    this.#refill();
    if (this.#tokens >= 1) {
      this.#send(resendOutbox);
      return;
    }
    const wait = (1 - this.#tokens) * HELLO_ANSWER_INTERVAL_MS;
    const cancel = this.#clock.after(wait, () => this.#send(this.#pending?.resendOutbox ?? resendOutbox));
    this.#pending = { cancel, resendOutbox };
  }

  #send(resendOutbox: boolean): void {
    this.#pending = undefined;
    if (this.#closed) return;
    this.#refill();
    this.#tokens = Math.max(0, this.#tokens - 1);
    this.#answer(resendOutbox);
  }

  #refill(): void {
    const now = this.#clock.now();
    this.#tokens = Math.min(HELLO_ANSWER_BURST, this.#tokens + (now - this.#at) / HELLO_ANSWER_INTERVAL_MS);
    this.#at = now;
  }
}
