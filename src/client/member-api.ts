// What the MCP server and the CLI need from a running room member. The room node implements
// it; keeping the surface here lets src/mcp be written and reviewed against a stable contract.

import type { EventEmitter } from 'node:events';
import type { Envelope, LogEntry, SenderKind } from './messages.js';

export type LinkPath = 'direct' | 'relay';

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
}

export interface SendInput {
  body: string;
  to?: string;
  replyTo?: string;
}

export interface SendResult {
  id: string;
  /** Name of the member whose ack arrived within the wait, or null. */
  ackedBy: string | null;
}

export interface RoomMemberEvents {
  /** A new message was stored in the inbox (never emitted for a duplicate). */
  message: [Envelope];
  online: [MemberStatus];
  offline: [MemberStatus];
  delivered: [{ id: string; by: string }];
}

export interface RoomMember extends EventEmitter<RoomMemberEvents> {
  readonly name: string;
  readonly roomId: string;
  /** Node id in hex; the first 10 characters are the short form shown to people. */
  readonly nodeId: string;
  /** Known members other than this one, ordered by name. */
  members(): MemberStatus[];
  onlineNames(): string[];
  /** Unread messages, oldest first. */
  unread(): Envelope[];
  /** Removes these ids from the inbox (wait/inbox consumed them). */
  consume(ids: string[]): Promise<void>;
  /** Marks `msgId` and every earlier unread message of the same sender as read. */
  markRepliedTo(msgId: string): Promise<void>;
  queuedCount(): number;
  /** Writes to the outbox, broadcasts, waits up to ackTimeoutMs for the first valid ack. */
  send(input: SendInput, ackTimeoutMs: number): Promise<SendResult>;
  /** The last `limit` log entries, oldest first. */
  history(limit: number): Promise<LogEntry[]>;
  /** Says goodbye to neighbours, flushes state, releases the lock. */
  close(): Promise<void>;
}
