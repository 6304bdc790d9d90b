// The delivery of an ephemeral identity (a person's `papo say` or `papo status` run): it never
// stores and never acks (docs/delivery.md), so what it hears is observed only, and what it sends
// is held in memory while the run lasts, re-sent to a neighbour until some member confirms it.
// Every member that confirms is reported once (papo say lists them all).

import { ackCounts } from '../store/outbox.js';
import type { DecisionOutcome, ReviewDecision } from '../store/review.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import type { Delivery, DeliveryHost } from './delivery.js';

export class EphemeralDelivery implements Delivery {
  #host: DeliveryHost;
  /** Sends of this run, with who acked them. */
  #pending = new Map<string, { envelope: Envelope; ackedBy: Set<string> }>();

  constructor(host: DeliveryHost) {
    this.#host = host;
  }

  async start(): Promise<void> {}

  unread(): Envelope[] {
    return [];
  }

  async consume(_ids: string[]): Promise<void> {}

  async restore(_messages: Envelope[]): Promise<void> {}

  held(): Envelope[] {
    return [];
  }

  reviewing(): boolean {
    return false;
  }

  async decide(decision: ReviewDecision): Promise<DecisionOutcome> {
    const ids = decision.approve === 'all' ? decision.reject : [...decision.approve, ...decision.reject];
    return { approved: [], rejected: [], unknown: ids, full: [] };
  }

  async markRepliedTo(_msgId: string): Promise<void> {}

  queuedCount(): number {
    return 0;
  }

  queuedFor(): { name: string; count: number }[] {
    return [];
  }

  async history(_limit: number): Promise<LogEntry[]> {
    return [];
  }

  queue(envelope: Envelope): undefined {
    this.#pending.set(envelope.id, { envelope, ackedBy: new Set() });
    return undefined;
  }

  async moreAcks(): Promise<void> {}

  owedNow(): string[] {
    return [];
  }

  /** Observed only: never stored, never acked. */
  onMsg(): undefined {
    return undefined;
  }

  onAck(id: string, by: string): void {
    const pending = this.#pending.get(id);
    if (!pending || !ackCounts(pending.envelope, by)) return;
    if (pending.ackedBy.has(by)) return;
    this.#host.waiters.acked(id, by);
    // An ephemeral send keeps listening: every member that confirms is reported once.
    pending.ackedBy.add(by);
    this.#host.events.emit('delivered', { id, by });
  }

  onRefused(id: string, by: string): void {
    const pending = this.#pending.get(id);
    // Only a recipient can refuse: the one named in `to`.
    if (pending && ackCounts(pending.envelope, by)) this.#host.waiters.refused(id, by);
  }

  toResend(): Envelope[] {
    return [...this.#pending.values()].filter((p) => p.ackedBy.size === 0).map((p) => p.envelope);
  }

  async forgetOwed(): Promise<number> {
    return 0;
  }

  /** Holds nothing, so asks for nothing. */
  linkOpened(): void {}

  linkClosed(): void {}

  /** Holds nothing to give. */
  onHave(): void {}

  heartbeat(): void {}

  close(): void {}
}
