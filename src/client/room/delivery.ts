// How this member's messages are sent and kept, in two halves (issue 41, ADR 0117): a Sender
// (what went out and who confirmed it) and a Keeper (what the member stores). An agent's member
// has both in DurableDelivery (outbox, inbox, log, acks, catch-up; docs/delivery.md), and a
// MemorySender for the says its person hands it (ADR 0102); a person's `papo say`/`papo status`
// run has a MemorySender and no keeper: it neither stores nor acks what it hears. The durable
// delivery gets the room node's host: its links, its codec, its confirmations, its one queue of writes.
import type { EventEmitter } from 'node:events';
import type { RoomMemberEvents } from '../member-api.js';
import type { DecisionOutcome, ReviewDecision } from '../store/review.js';
import type { FrameCodec } from '../wire/frame-codec.js';
import type { HaveFrame } from '../wire/frames.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import type { Confirmations } from './confirmations.js';
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
  /** Who confirmed what this member sent (the one record of it). */
  readonly confirmations: Confirmations;
  /** Runs state changes one after another, so two writers never interleave on one file. */
  serial<T>(work: () => Promise<T>): Promise<T>;
  onlineNames(): string[];
  /** The member heard from as `node` in this session (presence.ts). */
  live(node: string): LivePeer | undefined;
  isClosed(): boolean;
  now(): number;
  log(line: string): void;
}

/**
 * The sending half (issue 41): what this member (or its person) sent and who confirmed it. Durable
 * for an agent's own messages (the outbox: durable-delivery.ts), in memory for a person's say
 * (memory-sender.ts: a `papo say` run's own member, or the says handed to the running agent).
 */
export interface Sender {
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
  /** An ack from `by`, whose key holds its name; false when `id` is not this sender's message. */
  onAck(id: string, by: string): boolean;
  /** A recipient refused message `id` (its inbox is full); false when `id` is not this sender's. */
  onRefused(id: string, by: string): boolean;
  /** Messages to send `peer` again (a link opened, a heartbeat, a newcomer's hello). */
  toResend(peer: string): Envelope[];
}

/**
 * The keeping half: what an agent's member stores of the room (inbox, review, log, catch-up) and
 * its outbox as a queue the person and `papo forget` see. A person's `papo say`/`papo status` run
 * has none: it never stores and never acks (docs/delivery.md).
 */
export interface Keeper {
  /** Loads what was remembered (ids stored, recent messages); call once, before any frame. */
  start(): Promise<void>;
  /** Unread messages, oldest first. */
  unread(): Envelope[];
  consume(ids: string[]): Promise<void>;
  restore(messages: Envelope[]): Promise<void>;
  markRepliedTo(msgId: string): Promise<void>;
  /** Messages held for the person's review, oldest first. */
  held(): Envelope[];
  /** The person's review is on (ADR 0081). */
  reviewing(): boolean;
  /** Applies the person's decision on held messages; the approved ones become unread. */
  decide(decision: ReviewDecision): Promise<DecisionOutcome>;
  queuedCount(): number;
  queuedFor(): { name: string; count: number }[];
  /** Stops waiting for `name` (`papo forget`); call inside `serial`. Returns messages released. */
  forgetOwed(name: string): Promise<number>;
  history(limit: number): Promise<LogEntry[]>;
  /**
   * A message for the room or for this member, from a sender that holds its name. When this call
   * begins to keep it (a new message): the store, true once the message is on disk, false if it
   * could not be; otherwise undefined.
   */
  onMsg(msg: Envelope): Promise<boolean> | undefined;
  /** A link opened: tell the neighbour what we hold (catch-up.ts). */
  linkOpened(peer: string): void;
  linkClosed(peer: string): void;
  /** A neighbour's digest of what it holds. */
  onHave(peer: string, have: HaveFrame): void;
  heartbeat(): void;
  close(): void;
}
