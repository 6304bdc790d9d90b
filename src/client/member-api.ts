// What the MCP server and the CLI need from a running room member. The room node implements
// it; keeping the surface here lets src/mcp be written and reviewed against a stable contract.
// Beside it, RoomProbe: the little of the network that papo say/status and the tests read and the
// member does not tell (openMember returns both).

import type { EventEmitter } from 'node:events';
import type { LinkPath, NetworkHealth, SignalState } from './net/health.js';
import type { DecisionOutcome, ReviewDecision } from './store/review.js';
import type { Envelope, LogEntry, SenderKind } from './wire/messages.js';

// The network's health types are part of this contract; their home is net/health.ts.
export type {
  LinkPath,
  NetworkHealth,
  SignalProblem,
  SignalProblemCode,
  TransportHealth,
} from './net/health.js';

export interface MemberStatus {
  name: string;
  /** Node id in hex. */
  node: string;
  kind: SenderKind;
  /** What the member works on (the `about` of its hello), if known. */
  about?: string;
  online: boolean;
  /** Present while a data channel to this member is open. */
  path?: LinkPath;
  /**
   * Set while that channel has brought nothing back for a message sent on it, for this many
   * seconds (at least presence.ts's LINK_QUIET_MS): it is open, but not answering.
   */
  quietSeconds?: number;
  /** Its person reviews incoming messages before its agent sees them (its hello says so). */
  reviews?: boolean;
}

/** A key that claimed a name another key holds (ADR 0064). */
export interface Impostor {
  name: string;
  kind: SenderKind;
  /** Its node id (hex). */
  node: string;
  first: number;
  last: number;
  /** Frames refused from it. */
  frames: number;
}

export interface SendInput {
  body: string;
  to?: string;
  replyTo?: string;
  /**
   * A person's say chooses its id and signed time before it is sent (ADR 0102): sent again by
   * another process after a papo mcp died in the middle, it is the same bytes, dropped by id.
   */
  id?: string;
  ts?: number;
}

export interface SendResult {
  id: string;
  /** Name of the member whose ack arrived within the wait, or null. */
  ackedBy: string | null;
  /** With no ack: a recipient that refused the message because its inbox is full (ADR 0062). */
  refusedBy: string | null;
  /** Every member whose ack arrived within the wait, first one first (ADR 0063). */
  acked?: string[];
  /** Members it is still owed to when the wait ended: they get it later (absent or [] = nobody). */
  owed?: string[];
}

export interface RoomMemberEvents {
  /**
   * A message became unread: stored in the inbox (never emitted for a duplicate), or held for
   * review and then approved by the person (ADR 0081).
   */
  message: [Envelope];
  /** A new message was held for the person's review (store/review.ts): not for the agent yet. */
  held: [Envelope];
  online: [MemberStatus];
  offline: [MemberStatus];
  delivered: [{ id: string; by: string }];
  /**
   * A hello was heard from this node (a say's or status's ephemeral identity too): liveMembers()
   * may have changed without any member going online (one known from peers.json is online from
   * its link's open, before its hello).
   */
  heard: [string];
}

export interface RoomMember extends EventEmitter<RoomMemberEvents> {
  readonly name: string;
  readonly roomId: string;
  /** Node id in hex; the first 10 characters are the short form shown to people. */
  readonly nodeId: string;
  /** Known members other than this one, ordered by name. */
  members(): MemberStatus[];
  /**
   * Members heard from in this session and still live, ephemeral identities (papo say/status)
   * included: what `papo say` and `papo status` compare with the peers on the signal server's topic.
   */
  liveMembers(): MemberStatus[];
  onlineNames(): string[];
  /** Unread messages, oldest first. */
  unread(): Envelope[];
  /** Removes these ids from the inbox (wait/inbox consumed them). */
  consume(ids: string[]): Promise<void>;
  /**
   * Puts back among the unread the messages a call consumed but the client never took (it
   * cancelled the call as the result crossed): those not unread already, after the others.
   */
  restore(messages: Envelope[]): Promise<void>;
  /** Marks `msgId` and every earlier unread message of the same sender as read. */
  markRepliedTo(msgId: string): Promise<void>;
  /** Messages held for this member's person's review, oldest first (ADR 0081). */
  held(): Envelope[];
  /** This member's person reviews incoming messages (review.json says on). */
  reviewing(): boolean;
  /** The person's decision (papo review): approved messages become unread and are emitted. */
  decide(decision: ReviewDecision): Promise<DecisionOutcome>;
  queuedCount(): number;
  /** Keys refused for claiming a name another key holds (ADR 0064), oldest first. */
  impostors(): Impostor[];
  /** The member that refuses our frames because another key holds our name, if one said so. */
  nameTakenBy(): string | undefined;
  /** Who the queued messages wait for, with how many each ('' = whoever confirms first). */
  queuedFor?(): { name: string; count: number }[];
  /** Writes to the outbox, broadcasts, waits up to ackTimeoutMs for the first valid ack. */
  send(input: SendInput, ackTimeoutMs: number): Promise<SendResult>;
  /**
   * The network as it is now: the signal server and the transport process. Asks the transport
   * (at most about half a second), so a frozen one reads as unresponsive at once.
   */
  network(): Promise<NetworkHealth>;
  /** The last `limit` log entries, oldest first. */
  history(limit: number): Promise<LogEntry[]>;
  /** Says goodbye to neighbours, flushes state, releases the lock. */
  close(): Promise<void>;
}

/**
 * What `papo say`, `papo status`, the tests and the benchmarks read of a member's network besides
 * the member itself (openMember returns both): small and read-only, it sends nothing and gives no
 * hold on the transport.
 */
export interface RoomProbe {
  /** The signal server connection as last known (never waits). */
  signalState(): SignalState;
  /**
   * Calls `listener` whenever the signal server connection changes (joined, lost, refused, peers);
   * returns what stops it.
   */
  onSignalState(listener: (state: SignalState) => void): () => void;
  /** Node ids of the members this one holds an open data channel to. */
  neighbours(): string[];
  /** True while this process hosts the embedded signal server (a room on a loopback URL). */
  hostsSignalServer(): boolean;
}
