// The sending half of a person's say (delivery.ts): held in memory while the say waits, re-sent
// to a link that opens until some member confirms it, never stored (papo say keeps no queue:
// docs/delivery.md). One for a `papo say` run's own ephemeral member, and one in the running agent
// for the says its person hands it over member.sock (ADR 0102). Every member that confirms a
// message is told once, to that message's listener, and answers its ack waiters.
import { ackCounts } from '../store/outbox.js';
import type { Envelope } from '../wire/messages.js';
import type { AckWaiters } from './ack-waiters.js';
import type { Sender } from './delivery.js';

interface Held {
  envelope: Envelope;
  /** Lower-cased names of the members that confirmed it. */
  ackedBy: Set<string>;
  acked: (by: string) => void;
}

export class MemorySender implements Sender {
  #waiters: AckWaiters;
  /** Whom a message queued with `queue` tells of each confirmation (a say run: its 'delivered' event). */
  #confirmed: (id: string, by: string) => void;
  #held = new Map<string, Held>();

  constructor(waiters: AckWaiters, confirmed: (id: string, by: string) => void = () => {}) {
    this.#waiters = waiters;
    this.#confirmed = confirmed;
  }

  /** Holds `envelope` until `forget`; `acked` hears every member that confirms it, once each. */
  hold(envelope: Envelope, acked: (by: string) => void): void {
    this.#held.set(envelope.id, { envelope, ackedBy: new Set(), acked });
  }

  forget(id: string): void {
    this.#held.delete(id);
  }

  queue(envelope: Envelope): undefined {
    this.hold(envelope, (by) => this.#confirmed(envelope.id, by));
    return undefined;
  }

  /** Nobody is owed a say: there is no wait past the first ack here (person-say.ts has its own). */
  async moreAcks(): Promise<void> {}

  owedNow(): string[] {
    return [];
  }

  onAck(id: string, by: string): boolean {
    const held = this.#held.get(id);
    if (held === undefined) return false;
    // Only a member it is for confirms it (with `to`: the recipient), and each once.
    const key = by.toLowerCase();
    if (!ackCounts(held.envelope, by) || held.ackedBy.has(key)) return true;
    held.ackedBy.add(key);
    held.acked(by);
    this.#waiters.acked(id, by);
    return true;
  }

  onRefused(id: string, by: string): boolean {
    const held = this.#held.get(id);
    if (held === undefined) return false;
    // Only a recipient can refuse: the one named in `to`.
    if (ackCounts(held.envelope, by)) this.#waiters.refused(id, by);
    return true;
  }

  /** What nobody confirmed yet. */
  toResend(): Envelope[] {
    return [...this.#held.values()].filter((h) => h.ackedBy.size === 0).map((h) => h.envelope);
  }
}
