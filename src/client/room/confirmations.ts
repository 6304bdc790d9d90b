// Who confirmed each message this member (or its person) sent, in this session: the one record of
// it (issue 41). Every sender reports here each ack that counts (docs/delivery.md: "it is on their
// disk") and each refusal (the recipient's inbox is full, ADR 0062); `send` and a person's say wait
// here for the first ack and read here who confirmed. What a restart must not forget — who a queued
// message is still owed to — is the durable outbox's (store/outbox.ts), not this.

import type { Envelope } from '../wire/messages.js';
import { sameName } from '../wire/names.js';

export interface AckAnswer {
  ackedBy: string | null;
  refusedBy: string | null;
}

interface AckWaiter {
  /** An ack from `by`; '' when the node closes. */
  resolve: (by: string) => void;
  /** The recipient refused the message (its inbox is full). */
  refuse: (by: string) => void;
}

export class Confirmations {
  #waiters = new Map<string, AckWaiter[]>();
  /** The messages followed: who confirmed each, in the order they did, and how many follow it. */
  #followed = new Map<string, { by: string[]; followers: number }>();

  /**
   * Records who confirms `id` until the function returned is called. A send and the sender that
   * holds its message may both follow it: the record goes when the last of them lets go.
   */
  follow(id: string): () => void {
    const entry = this.#followed.get(id) ?? { by: [], followers: 0 };
    entry.followers++;
    this.#followed.set(id, entry);
    let following = true;
    return () => {
      if (!following) return;
      following = false;
      if (--entry.followers === 0) this.#followed.delete(id);
    };
  }

  /** Who confirmed a followed message so far ([] when none, or it is not followed). */
  by(id: string): string[] {
    return [...(this.#followed.get(id)?.by ?? [])];
  }

  /**
   * The first ack within `timeoutMs`; a refusal ends the wait at once for a message with `to`,
   * and is reported at the timeout for one to the whole room (another member may still ack).
   */
  wait(envelope: Envelope, timeoutMs: number): Promise<AckAnswer> {
    return new Promise((resolve) => {
      let refusedBy: string | null = null;
      const forget = () => {
        const rest = (this.#waiters.get(envelope.id) ?? []).filter((w) => w !== waiter);
        if (rest.length > 0) this.#waiters.set(envelope.id, rest);
        else this.#waiters.delete(envelope.id);
      };
      const waiter: AckWaiter = {
        resolve: (by) => {
          clearTimeout(timer);
          resolve({ ackedBy: by === '' ? null : by, refusedBy: by === '' ? refusedBy : null });
        },
        refuse: (by) => {
          refusedBy ??= by;
          if (envelope.to === undefined) return;
          clearTimeout(timer);
          forget();
          resolve({ ackedBy: null, refusedBy });
        },
      };
      const timer = setTimeout(() => {
        // Nobody confirmed in time: stop waiting (the message stays queued), and forget the waiter.
        forget();
        resolve({ ackedBy: null, refusedBy });
      }, timeoutMs);
      timer.unref();
      const list = this.#waiters.get(envelope.id) ?? [];
      list.push(waiter);
      this.#waiters.set(envelope.id, list);
    });
  }

  /**
   * `by`, a member the message is for, confirmed message `id`: every wait for it is answered, and
   * a followed message records `by`. False when `by` had confirmed this followed message already
   * (each member counts once); true otherwise. Saying it twice changes nothing more.
   */
  acked(id: string, by: string): boolean {
    for (const w of this.#waiters.get(id) ?? []) w.resolve(by);
    this.#waiters.delete(id);
    const confirmed = this.#followed.get(id)?.by;
    if (confirmed === undefined) return true;
    if (confirmed.some((n) => sameName(n, by))) return false;
    confirmed.push(by);
    return true;
  }

  /** `by`, a recipient, refused message `id`. */
  refused(id: string, by: string): void {
    for (const w of this.#waiters.get(id) ?? []) w.refuse(by);
  }

  /** The member closes: every wait ends without an ack. */
  close(): void {
    for (const waiters of this.#waiters.values()) for (const w of waiters) w.resolve('');
    this.#waiters.clear();
  }
}
