// How this member's messages are kept and confirmed, chosen once when the member is made: an
// agent's member stores (DurableDelivery: outbox, inbox, log, acks, catch-up; docs/delivery.md),
// a person's `papo say`/`papo status` run never does (EphemeralDelivery: what it sends is held in
// memory while it runs, and it neither stores nor acks what it hears). The room node hands both
// the same host: its links, its codec, its ack waiters and its one queue of writes.
import type { EventEmitter } from 'node:events';
import type { RoomMemberEvents } from '../member-api.js';
import type { DecisionOutcome, ReviewDecision } from '../store/review.js';
import type { FrameCodec } from '../wire/frame-codec.js';
import type { HaveFrame } from '../wire/frames.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import type { AckWaiters } from './ack-waiters.js';
import type { LivePeer } from './presence.js';

/** What a delivery needs of the room node. */
export interface DeliveryHost {
  readonly name: string;
  readonly nodeId: string;
  readonly codec: FrameCodec;
  /** The links as they are (frames sent here are not remembered for duplicate suppression). */
  readonly links: { send(peer: string, data: Uint8Array): boolean; neighbours(): string[] };
  /** Sends our own frame to one neighbour, or to all (forwarding.ts). */
  sendTo(peer: string, sealed: Uint8Array): void;
  broadcast(sealed: Uint8Array): void;
  /** The node's events (`message`, `delivered`). */
  readonly events: EventEmitter<RoomMemberEvents>;
  readonly waiters: AckWaiters;
  /** Runs state changes one after another, so two writers never interleave on one file. */
  serial<T>(work: () => Promise<T>): Promise<T>;
  onlineNames(): string[];
  /** The member heard from as `node` in this session (presence.ts). */
  live(node: string): LivePeer | undefined;
  isClosed(): boolean;
  now(): number;
  log(line: string): void;
}

export interface Delivery {
  /** Loads what was remembered (ids stored, recent messages); call once, before any frame. */
  start(): Promise<void>;
  /** Unread messages, oldest first (none for an ephemeral member). */
  unread(): Envelope[];
  consume(ids: string[]): Promise<void>;
  restore(messages: Envelope[]): Promise<void>;
  markRepliedTo(msgId: string): Promise<void>;
  /** Messages held for the person's review, oldest first (none for an ephemeral member). */
  held(): Envelope[];
  /** The person's review is on (ADR 0081). */
  reviewing(): boolean;
  /** Applies the person's decision on held messages; the approved ones become unread. */
  decide(decision: ReviewDecision): Promise<DecisionOutcome>;
  queuedCount(): number;
  queuedFor(): { name: string; count: number }[];
  history(limit: number): Promise<LogEntry[]>;
  /**
   * Keeps a signed message before its first broadcast: durably (a crash after this still
   * delivers), a promise that rejects if it could not be kept, and then it must not go out; in
   * memory, at once (undefined), so the message goes out in the same turn as the send.
   */
  queue(envelope: Envelope, members: () => string[]): Promise<void> | undefined;
  /** After the first ack: waits up to `ms` for the others online it is owed to (ADR 0063). */
  moreAcks(id: string, ms: number): Promise<void>;
  /** Names a queued message is still owed to ([] when none, or nobody is tracked). */
  owedNow(id: string): string[];
  /**
   * A message for the room or for this member, from a sender that holds its name. When this call
   * begins to keep it (a new message, stored by an agent's member): the store, true once the
   * message is on disk, false if it could not be; otherwise undefined.
   */
  onMsg(msg: Envelope): Promise<boolean> | undefined;
  /** An ack from `by`, whose key holds its name. */
  onAck(id: string, by: string): void;
  /** A recipient refused message `id` (its inbox is full). */
  onRefused(id: string, by: string): void;
  /** Messages to send `peer` again (a link opened, a heartbeat, a newcomer's hello). */
  toResend(peer: string): Envelope[];
  /** Stops waiting for `name` (`papo forget`); call inside `serial`. Returns messages released. */
  forgetOwed(name: string): Promise<number>;
  /** A link opened: tell the neighbour what we hold (catch-up.ts). */
  linkOpened(peer: string): void;
  linkClosed(peer: string): void;
  /** A neighbour's digest of what it holds. */
  onHave(peer: string, have: HaveFrame): void;
  heartbeat(): void;
  close(): void;
}
