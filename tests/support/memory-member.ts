// An in-memory RoomMember for driving the MCP server in-process. It implements the contract of
// src/client/member-api.ts literally (inbox, read marking, log, events) with no network: a
// stand-in for the member, not a mock of the server's behaviour. The same scenarios also run
// against real members (docs/mcp.md, "Tests").
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type {
  Impostor,
  MemberStatus,
  NetworkHealth,
  RoomMember,
  RoomMemberEvents,
  SendInput,
  SendResult,
} from '../../src/client/member-api.js';
import type { DecisionOutcome, ReviewDecision } from '../../src/client/store/review.js';
import type { Envelope, LogEntry, SenderKind } from '../../src/client/wire/messages.js';

export class MemoryMember extends EventEmitter<RoomMemberEvents> implements RoomMember {
  readonly name: string;
  readonly roomId: string;
  readonly nodeId: string;
  peers: MemberStatus[] = [];
  inbox: Envelope[] = [];
  log: LogEntry[] = [];
  queued: Envelope[] = [];
  /** Who acknowledges the next sends (null: nobody answers within the wait). */
  ackBy: string | null = null;
  closed = false;
  sent: { input: SendInput; ackTimeoutMs: number }[] = [];
  private clock = Date.UTC(2026, 9, 2, 17, 0, 0);

  constructor(name = 'voce', roomId = '7a2e64ec') {
    super();
    this.name = name;
    this.roomId = roomId;
    this.nodeId = `3b2c41d0a9${'0'.repeat(54)}`;
  }

  private tick(): number {
    this.clock += 1000;
    return this.clock;
  }

  /** A message from another member arrives: stored in the inbox and log, then announced. */
  receive(
    from: string,
    body: string,
    extra: { kind?: SenderKind; to?: string; reply_to?: string } = {},
  ): Envelope {
    const msg: Envelope = {
      id: randomBytes(5).toString('hex'),
      from,
      node: 'f'.repeat(64),
      kind: extra.kind ?? 'agent',
      ...(extra.to === undefined ? {} : { to: extra.to }),
      ...(extra.reply_to === undefined ? {} : { reply_to: extra.reply_to }),
      ts: this.tick(),
      body,
    };
    this.inbox.push(msg);
    this.log.push({ ev: 'in', msg });
    this.emit('message', msg);
    return msg;
  }

  /** What network() reports; tests set it to show the warnings. */
  health: NetworkHealth = {
    signalUrl: 'wss://signal.example.test',
    signal: { joined: true, everJoined: true, peers: [], dropped: {} },
    transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 5 },
  };
  async network(): Promise<NetworkHealth> {
    return this.health;
  }

  members(): MemberStatus[] {
    return [...this.peers].sort((a, b) => a.name.localeCompare(b.name));
  }
  /** No session to have heard anyone in: the peers that are online stand for it. */
  liveMembers(): MemberStatus[] {
    return this.peers.filter((p) => p.online);
  }
  onlineNames(): string[] {
    return this.members()
      .filter((p) => p.online)
      .map((p) => p.name);
  }
  unread(): Envelope[] {
    return [...this.inbox];
  }
  async consume(ids: string[]): Promise<void> {
    this.inbox = this.inbox.filter((m) => !ids.includes(m.id));
  }
  async restore(messages: Envelope[]): Promise<void> {
    for (const m of messages) if (!this.inbox.some((u) => u.id === m.id)) this.inbox.push(m);
  }
  async markRepliedTo(msgId: string): Promise<void> {
    const target = this.inbox.find((m) => m.id === msgId);
    if (target === undefined) return;
    const index = this.inbox.indexOf(target);
    this.inbox = this.inbox.filter((m, i) => !(m.from === target.from && i <= index));
  }
  /** Messages held for review (ADR 0081), and whether review is on. */
  heldMessages: Envelope[] = [];
  reviewOn = false;
  held(): Envelope[] {
    return [...this.heldMessages];
  }
  reviewing(): boolean {
    return this.reviewOn;
  }
  async decide(decision: ReviewDecision): Promise<DecisionOutcome> {
    const ids = decision.approve === 'all' ? this.heldMessages.map((m) => m.id) : decision.approve;
    const approved = this.heldMessages.filter((m) => ids.includes(m.id));
    const rejected = this.heldMessages.filter((m) => decision.reject.includes(m.id));
    this.heldMessages = this.heldMessages.filter((m) => !approved.includes(m) && !rejected.includes(m));
    for (const m of approved) {
      this.inbox.push(m);
      this.emit('message', m);
    }
    return { approved, rejected, unknown: [], full: [] };
  }
  queuedCount(): number {
    return this.queued.length;
  }
  async send(input: SendInput, ackTimeoutMs: number): Promise<SendResult> {
    this.sent.push({ input, ackTimeoutMs });
    const msg: Envelope = {
      id: randomBytes(5).toString('hex'),
      from: this.name,
      node: this.nodeId,
      kind: 'agent',
      ...(input.to === undefined ? {} : { to: input.to }),
      ...(input.replyTo === undefined ? {} : { reply_to: input.replyTo }),
      ts: this.tick(),
      body: input.body,
    };
    this.log.push({ ev: 'out', msg });
    if (this.ackBy === null) {
      this.queued.push(msg);
      return { id: msg.id, ackedBy: null, refusedBy: null };
    }
    this.log.push({ ev: 'delivered', id: msg.id, by: this.ackBy, ts: msg.ts });
    return { id: msg.id, ackedBy: this.ackBy, refusedBy: null };
  }
  impostors(): Impostor[] {
    return [];
  }
  nameTakenBy(): string | undefined {
    return undefined;
  }
  async history(limit: number): Promise<LogEntry[]> {
    return this.log.slice(-limit);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}
