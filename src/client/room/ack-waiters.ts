// Who waits for a sent message's first ack (the `send` of member-api.ts), whichever delivery
// confirms it: an ack (docs/delivery.md: "it is on their disk"), a refusal (the recipient's inbox
// is full, ADR 0062), the timeout, or the member closing.
import type { Envelope } from '../wire/messages.js';

export interface AckAnswer {
  ackedBy: string | null;
  refusedBy: string | null;
}

interface AckWaiter {
  to?: string;
  /** An ack from `by`; '' when the node closes. */
  resolve: (by: string) => void;
  /** The recipient refused the message (its inbox is full). */
  refuse: (by: string) => void;
}

export class AckWaiters {
  #waiters = new Map<string, AckWaiter[]>();

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
        ...(envelope.to ? { to: envelope.to } : {}),
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

  /** `by` acked message `id`: every waiter for it is answered, and forgotten. */
  acked(id: string, by: string): void {
    for (const w of this.#waiters.get(id) ?? []) w.resolve(by);
    this.#waiters.delete(id);
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
