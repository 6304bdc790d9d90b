// The sending half of a person's say (delivery.ts): held in memory while the say waits, re-sent
// to a link that opens until some member confirms it, never stored (papo say keeps no queue:
// docs/delivery.md). One for a `papo say` run's own ephemeral member, and one in the running agent
// for the says its person hands it over member.sock (ADR 0102). Who confirmed is recorded in the
// member's Confirmations; each member that confirms is told once to the message's listener.
import { ackCounts } from '../store/outbox.js';
import type { Envelope } from '../wire/messages.js';
import type { Confirmations } from './confirmations.js';
import type { Sender } from './delivery.js';

interface Held {
  envelope: Envelope;
  acked: (by: string) => void;
  /** Stops recording who confirms it. */
  unfollow: () => void;
}

export class MemorySender implements Sender {
  #confirmations: Confirmations;
  /** Whom a message queued with `queue` tells of each confirmation (a say run: its 'delivered' event). */
  #confirmed: (id: string, by: string) => void;
  #held = new Map<string, Held>();

  constructor(confirmations: Confirmations, confirmed: (id: string, by: string) => void = () => {}) {
    this.#confirmations = confirmations;
    this.#confirmed = confirmed;
  }

  /** Holds `envelope` until `forget`; `acked` hears every member that confirms it, once each. */
  hold(envelope: Envelope, acked: (by: string) => void): void {
    this.#held.get(envelope.id)?.unfollow();
    this.#held.set(envelope.id, { envelope, acked, unfollow: this.#confirmations.follow(envelope.id) });
  }

  forget(id: string): void {
    this.#held.get(id)?.unfollow();
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
    if (ackCounts(held.envelope, by) && this.#confirmations.acked(id, by)) held.acked(by);
    return true;
  }

  onRefused(id: string, by: string): boolean {
    const held = this.#held.get(id);
    if (held === undefined) return false;
    // Only a recipient can refuse: the one named in `to`.
    if (ackCounts(held.envelope, by)) this.#confirmations.refused(id, by);
    return true;
  }

  /** What nobody confirmed yet. */
  toResend(): Envelope[] {
    return [...this.#held.values()]
      .filter((h) => this.#confirmations.by(h.envelope.id).length === 0)
      .map((h) => h.envelope);
  }
}
