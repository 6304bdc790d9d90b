// The delivery of an agent's member, which stores (docs/delivery.md; per recipient: ADR 0063):
//   - send writes the outbox (durably) before the first broadcast;
//   - a receiver stores inbox + log, then acks; an ack means "it is on their disk";
//   - a message is owed to every member known when it is sent (with `to`: the recipient); each
//     one's ack takes that name off, and it leaves the outbox when nobody is owed;
//   - the outbox is re-sent to a neighbour while someone it is owed to may be reached;
//   - duplicates are dropped by id (ids remembered across restarts) and acked again, so a lost
//     ack heals by itself;
//   - a full inbox (ADR 0062) refuses a message and tells its sender;
//   - the review gate (ADR 0081): a message the person's rules hold is stored in held/ instead of
//     the inbox, logged and acked the same, and reaches the agent only once approved (store/review.ts);
//   - catch-up: both sides of a new link swap digests and send what the other lacks (catch-up.ts).

import { messageOf, PapoError } from '../errors.js';
import { shortId } from '../log.js';
import {
  ackCounts,
  afterAck,
  envelopeOfQueued,
  forgetInOutbox,
  owedAtSend,
  owedSummary,
  type QueuedMessage,
} from '../store/outbox.js';
import type { MemberState } from '../store/profile-store.js';
import {
  applyDecision,
  type DecisionOutcome,
  decidedIn,
  dropDecided,
  type ReviewDecision,
} from '../store/review.js';
import type { SignedFrame } from '../wire/frame-codec.js';
import type { HaveFrame } from '../wire/frames.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import { sameName } from '../wire/names.js';
import { CATCH_UP_LOG_ENTRIES, CatchUpPacer, digestOf, missingFor, RecentMessages } from './catch-up.js';
import type { DeliveryHost, Keeper, Sender } from './delivery.js';

/**
 * A neighbour's digest is answered at most this often (it sends one when the link opens and with
 * every heartbeat): a member reachable only through one that caught up later still gets it.
 */
const DIGEST_ANSWER_INTERVAL_MS = 25_000;
/** How far back the log is read at start for decisions a crash cut short (store/review.ts). */
const DECISIONS_LOG_ENTRIES = 2_000;

export class DurableDelivery implements Sender, Keeper {
  #host: DeliveryHost;
  #state: MemberState;
  #memberSince: number;
  #seenIds = new Set<string>();
  /** Messages being stored now: a copy arriving meanwhile is acked only once the store is done. */
  #storing = new Map<string, Promise<boolean>>();
  /** What this member stored or sent lately, for other members' catch-up (catch-up.ts). */
  #recent: RecentMessages;
  #catchUp: CatchUpPacer;
  /** When each link's digest was last answered (at most every DIGEST_ANSWER_INTERVAL_MS). */
  #digestAnswered = new Map<string, number>();

  /** `memberSince`: when this member joined the room (ms): catch-up never brings it older messages. */
  constructor(host: DeliveryHost, state: MemberState, memberSince: number) {
    this.#host = host;
    this.#state = state;
    this.#memberSince = memberSince;
    const now = () => host.now();
    this.#recent = new RecentMessages(now);
    this.#catchUp = new CatchUpPacer((peer, msg) => {
      // Sent with its sender's own signature (checked as the msg it was: frame-codec.ts); a message
      // stored before frames were signed has none, and cannot be vouched for.
      if (msg.sig === undefined) return;
      try {
        host.sendTo(peer, host.codec.seal({ ...msg, t: 'missed' } as SignedFrame));
      } catch (err) {
        // A message whose frame was at the 64 KiB limit does not fit with the longer `t`.
        host.log(`catch-up: could not send ${msg.id}: ${messageOf(err)}`);
      }
    }, now);
  }

  async start(): Promise<void> {
    // A decision a crash cut short is finished (store/review.ts); decisions are recent, so the tail of
    // the log holds them. That tail (longer than catch-up's) is read once and serves both.
    const tail =
      this.#state.held.length > 0 ? await this.#state.readLogTail(DECISIONS_LOG_ENTRIES) : undefined;
    if (tail !== undefined) await dropDecided(this.#state, decidedIn(tail), this.#host.now());
    for (const id of await this.#state.recoverInboundIds()) this.#seenIds.add(id);
    try {
      this.#recent.load(
        tail?.slice(-CATCH_UP_LOG_ENTRIES) ?? (await this.#state.readLogTail(CATCH_UP_LOG_ENTRIES)),
      );
    } catch (err) {
      this.#host.log(`could not read the log for catch-up: ${messageOf(err)}`);
    }
  }

  unread(): Envelope[] {
    return [...this.#state.inbox];
  }

  async consume(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const drop = new Set(ids);
    await this.#host.serial(() => this.#state.removeFromInbox(drop));
  }

  async restore(messages: Envelope[]): Promise<void> {
    if (messages.length === 0) return;
    await this.#host.serial(async () => {
      const unread = new Set(this.#state.inbox.map((m) => m.id));
      for (const msg of messages) {
        if (unread.has(msg.id)) continue;
        await this.#state.addToInbox(msg);
        unread.add(msg.id);
      }
    });
  }

  async markRepliedTo(msgId: string): Promise<void> {
    const inbox = this.#state.inbox;
    const index = inbox.findIndex((m) => m.id === msgId);
    if (index < 0) return;
    const target = inbox[index] as Envelope;
    const drop = new Set(
      inbox
        .slice(0, index + 1)
        .filter((m) => m.from === target.from && m.kind === target.kind)
        .map((m) => m.id),
    );
    await this.consume([...drop]);
  }

  held(): Envelope[] {
    return [...this.#state.held];
  }

  reviewing(): boolean {
    return this.#state.review.reviewing();
  }

  async decide(decision: ReviewDecision): Promise<DecisionOutcome> {
    const outcome = await this.#host.serial(() => applyDecision(this.#state, decision, this.#host.now()));
    // Approved: unread now, so the agent gets them as new messages (pushed, returned by wait).
    for (const msg of outcome.approved) this.#host.events.emit('message', msg);
    return outcome;
  }

  queuedCount(): number {
    return this.#state.outbox.length;
  }

  queuedFor(): { name: string; count: number }[] {
    return owedSummary(this.#state.outbox);
  }

  history(limit: number): Promise<LogEntry[]> {
    return this.#state.readLogTail(limit);
  }

  async queue(envelope: Envelope, members: () => string[]): Promise<void> {
    const state = this.#state;
    // Owed to every member known now (ADR 0063); knowing nobody, the first ack clears it.
    const owed = owedAtSend(members(), this.#host.name, envelope.to);
    const queued: QueuedMessage = { ...envelope, ...(owed ? { owed } : {}) };
    // Outbox before the first broadcast: a crash after this line still delivers (docs/delivery.md).
    await this.#host.serial(async () => {
      state.outbox.push(queued);
      try {
        await state.saveOutbox();
      } catch (err) {
        // Not queued on disk: the caller is told it failed, so it must not go out either.
        state.outbox = state.outbox.filter((m) => m.id !== envelope.id);
        throw err;
      }
      await state.appendLog({ ev: 'out', msg: envelope });
    });
    this.#recent.add(envelope);
  }

  moreAcks(id: string, ms: number): Promise<void> {
    // Those online it is still owed to usually confirm within moments: wait a little for them,
    // so the result can say who has it and who gets it later.
    return this.#until(ms, () => {
      const online = this.#host.onlineNames();
      return this.owedNow(id).every((n) => !online.some((o) => sameName(o, n)));
    });
  }

  owedNow(id: string): string[] {
    return [...(this.#state.outbox.find((m) => m.id === id)?.owed ?? [])];
  }

  onMsg(msg: Envelope): Promise<boolean> | undefined {
    const host = this.#host;
    const state = this.#state;
    if (msg.to !== undefined && !sameName(msg.to, host.name)) return undefined;
    if (this.#seenIds.has(msg.id)) {
      // Stored before: ack again, so an ack that was lost heals (docs/delivery.md).
      this.#ack(msg.id);
      return undefined;
    }
    const storing = this.#storing.get(msg.id);
    if (storing) {
      // Another copy while the first is being written: its ack waits for the disk too.
      void storing.then((stored) => stored && this.#ack(msg.id));
      return undefined;
    }
    let held = false;
    const store = host
      .serial(async () => {
        // The person's review gate decides where it is kept: held/ or the inbox (ADR 0081). Either
        // way it is stored, logged and acked alike: the sender learns nothing it would not.
        // The person's own words (their `papo say`, under the name their key holds) are never
        // held from their own agent.
        held = !(msg.kind === 'human' && sameName(msg.from, host.name)) && state.review.holds(msg);
        // Store before ack: the ack tells the sender the message is safe on our disk.
        await (held ? state.addToHeld(msg) : state.addToInbox(msg));
        try {
          await state.appendLog({ ev: 'in', msg, ...(held ? { held: true as const } : {}) });
        } catch (err) {
          // The inbox holds it, so it is safe for the agent; only history misses the line.
          host.log(`could not log message ${msg.id}: ${messageOf(err)}`);
        }
      })
      .then(
        () => {
          this.#seenIds.add(msg.id);
          this.#recent.add(msg);
          this.#storing.delete(msg.id);
          this.#ack(msg.id);
          host.events.emit(held ? 'held' : 'message', msg);
          return true;
        },
        (err: unknown) => {
          // Not stored, so not acked: the sender keeps it queued and sends it again.
          this.#storing.delete(msg.id);
          host.log(`could not store message ${msg.id}: ${messageOf(err)}`);
          // A full inbox is told, so the sender can say why (not acked, not seen: a later copy,
          // once the agent has read, is stored).
          if (err instanceof PapoError && err.code === 'inbox_full' && !host.isClosed())
            host.broadcast(
              host.codec.signAndSeal({
                t: 'refused',
                id: msg.id,
                by: host.name,
                node: host.nodeId,
                why: 'inbox_full',
              }),
            );
          return false;
        },
      );
    this.#storing.set(msg.id, store);
    return store;
  }

  #ack(id: string): void {
    const host = this.#host;
    if (!host.isClosed())
      host.broadcast(host.codec.signAndSeal({ t: 'ack', id, by: host.name, node: host.nodeId }));
  }

  onAck(id: string, by: string): boolean {
    const host = this.#host;
    const state = this.#state;
    const queued = state.outbox.find((m) => m.id === id);
    if (!queued) return false;
    // Only a member it is owed to (with `to`: the recipient) takes itself off (ADR 0063).
    if (!ackCounts(queued, by)) return true;
    // The sender learns "delivered" once the outbox and the log say so: history agrees at once.
    void host
      .serial(async () => {
        const index = state.outbox.findIndex((m) => m.id === id);
        const current = state.outbox[index];
        if (current === undefined) return;
        const next = afterAck(current, by);
        if (next === current) return;
        state.outbox =
          next === null
            ? state.outbox.filter((m) => m.id !== id)
            : state.outbox.map((m) => (m.id === id ? next : m));
        await state.saveOutbox();
        await state.appendLog({ ev: 'delivered', id, by, ts: host.now() });
        // Recorded before it is told: whoever hears 'delivered' finds who confirmed (confirmations.ts).
        host.confirmations.acked(id, by);
        host.events.emit('delivered', { id, by });
      })
      .catch((err: unknown) => host.log(`could not update the outbox: ${messageOf(err)}`))
      // An ack that changed nothing here, or could not be written, still answers the waits.
      .finally(() => host.confirmations.acked(id, by));
    return true;
  }

  onRefused(id: string, by: string): boolean {
    const queued = this.#state.outbox.find((m) => m.id === id);
    if (!queued) return false;
    // Only a recipient can refuse: one it is owed to (the one named in `to`).
    if (ackCounts(queued, by)) this.#host.confirmations.refused(id, by);
    return true;
  }

  toResend(peer: string): Envelope[] {
    // A message owed only to members who are offline waits for one of them to come back (their
    // hello re-sends the outbox): re-sending it to the others would only bring their acks again.
    const online = this.#host.onlineNames();
    const peerName = this.#host.live(peer)?.name ?? this.#state.peers[peer]?.name;
    const reachable = (m: QueuedMessage) =>
      m.owed === undefined ||
      m.owed.some(
        (n) => (peerName !== undefined && sameName(n, peerName)) || online.some((o) => sameName(o, n)),
      );
    return this.#state.outbox.filter(reachable).map(envelopeOfQueued);
  }

  async forgetOwed(name: string): Promise<number> {
    const { outbox, released } = forgetInOutbox(this.#state.outbox, name);
    if (released > 0) {
      this.#state.outbox = outbox;
      await this.#state.saveOutbox();
    }
    return released;
  }

  linkOpened(peer: string): void {
    // What we hold, so the peer can send us what we missed (catch-up.ts).
    this.#host.sendTo(peer, this.#host.codec.signAndSeal(this.#digest()));
  }

  linkClosed(peer: string): void {
    this.#digestAnswered.delete(peer);
    this.#catchUp.drop(peer);
  }

  /**
   * A neighbour's digest: queue what it lacks (within catch-up.ts's bounds, at most once per link
   * every DIGEST_ANSWER_INTERVAL_MS).
   */
  onHave(peer: string, have: HaveFrame): void {
    const now = this.#host.now();
    const last = this.#digestAnswered.get(peer);
    if (last !== undefined && now - last < DIGEST_ANSWER_INTERVAL_MS) return;
    const live = this.#host.live(peer);
    if (live?.ephemeral) return;
    this.#digestAnswered.set(peer, now);
    const missing = missingFor(this.#recent.messages(), have, { node: peer, name: live?.name });
    if (missing.length === 0) return;
    const queued = this.#catchUp.enqueue(peer, missing);
    this.#host.log(`catch-up: sending ${queued} of ${missing.length} missed messages to ${shortId(peer)}`);
  }

  heartbeat(): void {
    // What we hold, again: a neighbour may have caught up since the link opened (catch-up.ts).
    const links = this.#host.links;
    const digest = this.#host.codec.signAndSeal(this.#digest());
    for (const peer of links.neighbours()) links.send(peer, digest);
  }

  close(): void {
    this.#catchUp.close();
  }

  #digest(): HaveFrame {
    return {
      ...digestOf(this.#recent.messages(), this.#memberSince, this.#host.now()),
      node: this.#host.nodeId,
    };
  }

  /** Resolves when `done()` holds (checked at each counted ack) or after `ms`. */
  #until(ms: number, done: () => boolean): Promise<void> {
    if (ms <= 0 || done()) return Promise.resolve();
    const events = this.#host.events;
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        events.off('delivered', check);
        resolve();
      };
      const check = () => {
        if (done() || this.#host.isClosed()) finish();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      events.on('delivered', check);
    });
  }
}
