// The room member (the book's `Node`): presence, the outbox, acks, dedupe and forwarding, over
// any transport that can reach neighbours. Delivery rules are the book's ADR 0005:
//   - send writes the outbox (durably) before the first broadcast;
//   - a receiver stores inbox + log, then acks; an ack means "it is on their disk";
//   - the first valid ack removes the message from the outbox (with `to`: only the recipient's);
//   - the outbox is re-sent when a neighbour connects and every 30 s;
//   - duplicates are dropped by id (ids remembered across restarts) and acked again, so a lost
//     ack heals by itself;
//   - ephemeral identities (papo say/status) never store and never ack.
// Frames are forwarded once to the other neighbours, so a member reachable only through another
// member still gets everything (the book's gossip guarantee, here over a data-channel mesh).
import { EventEmitter } from 'node:events';
import { PapoError } from './errors.js';
import {
  envelopeOf,
  type Frame,
  type HelloFrame,
  MAX_ABOUT_CHARS,
  MAX_BODY_BYTES,
  msgFrame,
  newMessageId,
  openFrame,
  sealFrame,
  utf8Length,
} from './frames.js';
import type {
  LinkPath,
  MemberStatus,
  NetworkHealth,
  RoomMember,
  RoomMemberEvents,
  SendInput,
  SendResult,
} from './member-api.js';
import type { Envelope, LogEntry, SenderKind } from './messages.js';
import { isMemberName, sameName } from './names.js';
import { NONCE_BYTES } from './room-crypto.js';

/** Presence: a member heard from within this window counts as online (the book: 75 s). */
export const ONLINE_WINDOW_MS = 75_000;
/** Hello and outbox re-send period while connected (the book: 30 s). */
export const HEARTBEAT_MS = 30_000;
const PRESENCE_TICK_MS = 1_000;
/** How many forwarded-frame fingerprints to remember (enough for minutes of busy traffic). */
const SEEN_FRAMES_LIMIT = 4096;

/**
 * The links to neighbours, as the node sees them (the mesh, in this process or in the transport
 * process: src/client/transport.ts).
 */
export interface NodeTransport extends EventEmitter<TransportEvents> {
  send(peer: string, data: Uint8Array): boolean;
  neighbours(): string[];
  path(peer: string): LinkPath | undefined;
}

export interface TransportEvents {
  'link-open': [string];
  'link-message': [string, Uint8Array];
  'link-close': [string];
  /** The peer left the room's topic on the signal server: its goodbye. */
  'peer-left': [string];
}

export interface KnownPeer {
  name: string;
  about?: string;
  kind: SenderKind;
  lastSeen: number;
}

/** Durable state of a non-ephemeral member (implemented over the profile store). */
export interface NodeState {
  inbox: Envelope[];
  outbox: Envelope[];
  peers: Record<string, KnownPeer>;
  saveInbox(): Promise<void>;
  saveOutbox(): Promise<void>;
  savePeers(): Promise<void>;
  appendLog(entry: LogEntry): Promise<void>;
  readLogTail(limit: number): Promise<LogEntry[]>;
  /** Every msg id this member ever stored (from the log and the inbox). */
  inboundIds(): Promise<Iterable<string>>;
}

export interface RoomNodeOptions {
  name: string;
  about?: string;
  kind: SenderKind;
  nodeId: string;
  roomId: string;
  frameKey: Uint8Array;
  transport: NodeTransport;
  /** null for an ephemeral identity: it never stores, never acks, is never remembered. */
  state: NodeState | null;
  /** Members known from earlier sessions, for an ephemeral node (read-only; never written). */
  knownPeers?: Record<string, KnownPeer>;
  /** The network's health (the transport's); default: a transport with nothing to report. */
  network?: () => Promise<NetworkHealth>;
  /** Called on close, after the node stopped talking (closes links, releases the lock...). */
  onClose?: () => Promise<void>;
  /** Diagnostics (stderr); never stdout. */
  log?: (line: string) => void;
  now?: () => number;
}

interface LivePeer {
  name: string;
  about?: string;
  kind: SenderKind;
  ephemeral: boolean;
  lastSeen: number;
}

interface AckWaiter {
  to?: string;
  resolve: (by: string) => void;
}

export class RoomNode extends EventEmitter<RoomMemberEvents> implements RoomMember {
  readonly name: string;
  readonly roomId: string;
  readonly nodeId: string;
  readonly kind: SenderKind;
  readonly ephemeral: boolean;
  /** Frames that did not open or validate, by reason (they are dropped, never fatal). */
  readonly dropped = { open: 0, invalid: 0 };

  #about: string | undefined;
  #frameKey: Uint8Array;
  #transport: NodeTransport;
  #state: NodeState | null;
  #knownPeers: Record<string, KnownPeer>;
  #onClose: (() => Promise<void>) | undefined;
  #network: () => Promise<NetworkHealth>;
  #log: (line: string) => void;
  #now: () => number;
  #live = new Map<string, LivePeer>();
  #helloAnswered = new Set<string>();
  #online = new Set<string>();
  #seenIds = new Set<string>();
  /** Messages being stored now: a copy arriving meanwhile is acked only once the store is done. */
  #storing = new Map<string, Promise<boolean>>();
  #seenFrames = new Set<string>();
  #waiters = new Map<string, AckWaiter[]>();
  /** Ephemeral sends, kept in memory only, with who acked them (papo say reports everyone). */
  #pending = new Map<string, { envelope: Envelope; ackedBy: Set<string> }>();
  #timers: NodeJS.Timeout[] = [];
  #writes: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: RoomNodeOptions) {
    super();
    // Every pending `wait` of the MCP server listens for messages; a dozen at once is legitimate
    // and each removes its listener, so Node's leak warning (at 10) would be noise on stderr.
    this.setMaxListeners(0);
    this.name = options.name;
    this.roomId = options.roomId;
    this.nodeId = options.nodeId;
    this.kind = options.kind;
    this.ephemeral = options.state === null;
    this.#about = options.about;
    this.#frameKey = options.frameKey;
    this.#transport = options.transport;
    this.#state = options.state;
    this.#knownPeers = options.knownPeers ?? {};
    this.#onClose = options.onClose;
    this.#network =
      options.network ??
      (async () => ({
        signalUrl: '',
        signal: { joined: true, everJoined: true, peers: [], dropped: {} },
        transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 0 },
      }));
    this.#log = options.log ?? (() => {});
    this.#now = options.now ?? Date.now;
  }

  /** Loads remembered ids and starts listening; call once. */
  async start(): Promise<void> {
    if (this.#state) for (const id of await this.#state.inboundIds()) this.#seenIds.add(id);
    this.#transport.on('link-open', (peer) => this.#onLinkOpen(peer));
    this.#transport.on('link-message', (peer, data) => this.#onLinkMessage(peer, data));
    this.#transport.on('link-close', () => this.#updatePresence());
    this.#transport.on('peer-left', (peer) => this.#onPeerLeft(peer));
    const heartbeat = setInterval(() => this.#heartbeat(), HEARTBEAT_MS);
    const presence = setInterval(() => this.#updatePresence(), PRESENCE_TICK_MS);
    heartbeat.unref();
    presence.unref();
    this.#timers.push(heartbeat, presence);
    for (const peer of this.#transport.neighbours()) this.#onLinkOpen(peer);
  }

  get about(): string | undefined {
    return this.#about;
  }

  // ---- RoomMember --------------------------------------------------------------------------

  members(): MemberStatus[] {
    const byNode = new Map<string, MemberStatus>();
    const known = this.#state?.peers ?? this.#knownPeers;
    for (const [node, p] of Object.entries(known)) {
      if (node === this.nodeId) continue;
      byNode.set(node, this.#statusOf(node, p.name, p.kind, p.about));
    }
    for (const [node, p] of this.#live) {
      if (node === this.nodeId || p.ephemeral) continue;
      byNode.set(node, this.#statusOf(node, p.name, p.kind, p.about));
    }
    return [...byNode.values()].sort((a, b) => a.name.localeCompare(b.name) || a.node.localeCompare(b.node));
  }

  /** Members seen on the room right now, including other ephemeral identities. */
  liveMembers(): MemberStatus[] {
    return [...this.#live.entries()]
      .filter(([node]) => node !== this.nodeId)
      .map(([node, p]) => this.#statusOf(node, p.name, p.kind, p.about));
  }

  onlineNames(): string[] {
    const names = this.members()
      .filter((m) => m.online)
      .map((m) => m.name);
    return [...new Set(names)];
  }

  neighbours(): string[] {
    return this.#transport.neighbours();
  }

  unread(): Envelope[] {
    return [...(this.#state?.inbox ?? [])];
  }

  async consume(ids: string[]): Promise<void> {
    const state = this.#state;
    if (!state || ids.length === 0) return;
    const drop = new Set(ids);
    await this.#serial(async () => {
      state.inbox = state.inbox.filter((m) => !drop.has(m.id));
      await state.saveInbox();
    });
  }

  async markRepliedTo(msgId: string): Promise<void> {
    const state = this.#state;
    if (!state) return;
    const index = state.inbox.findIndex((m) => m.id === msgId);
    if (index < 0) return;
    const target = state.inbox[index] as Envelope;
    const drop = new Set(
      state.inbox
        .slice(0, index + 1)
        .filter((m) => m.from === target.from && m.kind === target.kind)
        .map((m) => m.id),
    );
    await this.consume([...drop]);
  }

  queuedCount(): number {
    return this.#state?.outbox.length ?? 0;
  }

  network(): Promise<NetworkHealth> {
    return this.#network();
  }

  async history(limit: number): Promise<LogEntry[]> {
    return this.#state ? this.#state.readLogTail(limit) : [];
  }

  async send(input: SendInput, ackTimeoutMs: number): Promise<SendResult> {
    if (this.#closed) throw new PapoError('io', 'the room member is closed');
    const body = input.body;
    if (body.length === 0 || utf8Length(body) > MAX_BODY_BYTES)
      throw new RangeError('body empty or over 48 KiB');
    if (input.to !== undefined && !isMemberName(input.to)) throw new RangeError('invalid `to`');
    const envelope: Envelope = {
      id: newMessageId(),
      from: this.name,
      node: this.nodeId,
      kind: this.kind,
      ...(input.to ? { to: input.to } : {}),
      ...(input.replyTo ? { reply_to: input.replyTo } : {}),
      ts: this.#now(),
      body,
    };
    const acked = this.#waitForAck(envelope, ackTimeoutMs);
    const state = this.#state;
    if (state) {
      // Outbox before the first broadcast: a crash after this line still delivers (ADR 0005).
      await this.#serial(async () => {
        state.outbox.push(envelope);
        try {
          await state.saveOutbox();
        } catch (err) {
          // Not queued on disk: the caller is told it failed, so it must not go out either.
          state.outbox = state.outbox.filter((m) => m.id !== envelope.id);
          throw err;
        }
        await state.appendLog({ ev: 'out', msg: envelope });
      });
    } else {
      this.#pending.set(envelope.id, { envelope, ackedBy: new Set() });
    }
    this.#broadcast(sealFrame(this.#frameKey, msgFrame(envelope)));
    const ackedBy = await acked;
    return { id: envelope.id, ackedBy };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    for (const waiters of this.#waiters.values()) for (const w of waiters) w.resolve('');
    this.#waiters.clear();
    await this.#writes.catch(() => {});
    await this.#onClose?.();
  }

  // ---- frames in ---------------------------------------------------------------------------

  #onLinkOpen(peer: string): void {
    if (this.#closed) return;
    this.#sendTo(peer, this.#hello());
    this.#resendOutbox(peer);
    this.#updatePresence();
  }

  #onLinkMessage(peer: string, data: Uint8Array): void {
    if (this.#closed || data.length < NONCE_BYTES) return;
    // The nonce is random per seal, so it identifies one frame; a frame we saw already (it came
    // back through another neighbour) is neither handled nor forwarded again.
    const fingerprint = Buffer.from(data.subarray(0, NONCE_BYTES)).toString('hex');
    if (this.#seenFrames.has(fingerprint)) return;
    let frame: Frame;
    try {
      frame = openFrame(this.#frameKey, data);
    } catch (err) {
      const reason = err instanceof PapoError && err.code === 'open_failed' ? 'open' : 'invalid';
      this.dropped[reason]++;
      this.#log(`dropped a frame from ${peer.slice(0, 10)}: ${(err as Error).message}`);
      return;
    }
    this.#remember(fingerprint);
    for (const other of this.#transport.neighbours()) {
      if (other !== peer) this.#transport.send(other, data);
    }
    switch (frame.t) {
      case 'hello':
        this.#onHello(frame);
        break;
      case 'msg':
        this.#onMsg(envelopeOf(frame));
        break;
      case 'ack':
        this.#onAck(frame.id, frame.by);
        break;
    }
  }

  #remember(fingerprint: string): void {
    this.#seenFrames.add(fingerprint);
    if (this.#seenFrames.size > SEEN_FRAMES_LIMIT) {
      const oldest = this.#seenFrames.values().next().value;
      if (oldest !== undefined) this.#seenFrames.delete(oldest);
    }
  }

  /**
   * A member that closes leaves the signal server's topic: it is offline from then on, not 75 s
   * later (it comes back online with its next hello or message, directly or forwarded).
   */
  #onPeerLeft(peer: string): void {
    const live = this.#live.get(peer);
    if (live?.ephemeral)
      this.#live.delete(peer); // a say/status run: it will not come back
    else if (live) live.lastSeen = 0;
    // If it comes back, its first hello is answered again (it may have been away a while).
    this.#helloAnswered.delete(peer);
    this.#updatePresence();
  }

  #onHello(hello: HelloFrame): void {
    if (hello.node === this.nodeId) return;
    const now = this.#now();
    this.#live.set(hello.node, {
      name: hello.name,
      ...(hello.about ? { about: hello.about } : {}),
      kind: hello.kind,
      ephemeral: hello.ephemeral,
      lastSeen: now,
    });
    const state = this.#state;
    if (state && !hello.ephemeral) {
      const before = state.peers[hello.node];
      const changed = !before || before.name !== hello.name || before.about !== hello.about;
      state.peers[hello.node] = {
        name: hello.name,
        ...(hello.about ? { about: hello.about } : {}),
        kind: hello.kind,
        lastSeen: now,
      };
      // lastSeen alone is refreshed in memory; the file is written when something a person
      // would see changes, and on close.
      if (changed) void this.#serial(() => state.savePeers());
    }
    if (!this.#helloAnswered.has(hello.node)) {
      // Answer a first hello so a newcomer learns about us without waiting 30 s.
      this.#helloAnswered.add(hello.node);
      this.#broadcast(this.#hello());
      // A new member may be the recipient of something queued.
      if (!hello.ephemeral) for (const peer of this.#transport.neighbours()) this.#resendOutbox(peer);
    }
    this.#updatePresence();
  }

  #onMsg(msg: Envelope): void {
    if (msg.node === this.nodeId) return;
    const live = this.#live.get(msg.node);
    if (live) live.lastSeen = this.#now();
    const state = this.#state;
    if (state === null) return; // ephemeral: observe only, never store nor ack
    if (msg.to !== undefined && !sameName(msg.to, this.name)) return;
    if (this.#seenIds.has(msg.id)) {
      // Stored before: ack again, so an ack that was lost heals (ADR 0005).
      this.#ack(msg.id);
      return;
    }
    const storing = this.#storing.get(msg.id);
    if (storing) {
      // Another copy while the first is being written: its ack waits for the disk too.
      void storing.then((stored) => stored && this.#ack(msg.id));
      return;
    }
    const store = this.#serial(async () => {
      // Store before ack: the ack tells the sender the message is safe on our disk.
      state.inbox.push(msg);
      try {
        await state.saveInbox();
      } catch (err) {
        state.inbox = state.inbox.filter((m) => m !== msg);
        throw err;
      }
      try {
        await state.appendLog({ ev: 'in', msg });
      } catch (err) {
        // The inbox holds it, so it is safe for the agent; only history misses the line.
        this.#log(`could not log message ${msg.id}: ${(err as Error).message}`);
      }
    }).then(
      () => {
        this.#seenIds.add(msg.id);
        this.#storing.delete(msg.id);
        this.#ack(msg.id);
        this.emit('message', msg);
        return true;
      },
      (err: unknown) => {
        // Not stored, so not acked: the sender keeps it queued and sends it again.
        this.#storing.delete(msg.id);
        this.#log(`could not store message ${msg.id}: ${(err as Error).message}`);
        return false;
      },
    );
    this.#storing.set(msg.id, store);
  }

  #ack(id: string): void {
    if (!this.#closed) this.#broadcast(sealFrame(this.#frameKey, { t: 'ack', id, by: this.name }));
  }

  #onAck(id: string, by: string): void {
    const state = this.#state;
    const pending = this.#pending.get(id);
    const queued = state?.outbox.find((m) => m.id === id) ?? pending?.envelope;
    if (!queued) return;
    if (queued.to !== undefined && !sameName(queued.to, by)) return; // only the recipient clears it
    const resolveWaiters = () => {
      for (const w of this.#waiters.get(id) ?? []) w.resolve(by);
      this.#waiters.delete(id);
    };
    if (state) {
      // The sender learns "delivered" once the outbox and the log say so: history agrees at once.
      void this.#serial(async () => {
        const before = state.outbox.length;
        state.outbox = state.outbox.filter((m) => m.id !== id);
        if (state.outbox.length === before) return;
        await state.saveOutbox();
        await state.appendLog({ ev: 'delivered', id, by, ts: this.#now() });
        this.emit('delivered', { id, by });
      })
        .catch((err: unknown) => this.#log(`could not update the outbox: ${(err as Error).message}`))
        .finally(resolveWaiters);
    } else if (pending && !pending.ackedBy.has(by)) {
      resolveWaiters();
      // An ephemeral send keeps listening: every member that confirms is reported once.
      pending.ackedBy.add(by);
      this.emit('delivered', { id, by });
    }
  }

  // ---- frames out --------------------------------------------------------------------------

  #hello(): Uint8Array {
    const hello: HelloFrame = {
      t: 'hello',
      node: this.nodeId,
      name: this.name,
      // Receivers refuse a longer `about` (and with it the whole hello): never send one.
      ...(this.#about ? { about: this.#about.slice(0, MAX_ABOUT_CHARS) } : {}),
      kind: this.kind,
      ephemeral: this.ephemeral,
    };
    return sealFrame(this.#frameKey, hello);
  }

  #sendTo(peer: string, sealed: Uint8Array): void {
    this.#remember(Buffer.from(sealed.subarray(0, NONCE_BYTES)).toString('hex'));
    this.#transport.send(peer, sealed);
  }

  #broadcast(sealed: Uint8Array): void {
    this.#remember(Buffer.from(sealed.subarray(0, NONCE_BYTES)).toString('hex'));
    for (const peer of this.#transport.neighbours()) this.#transport.send(peer, sealed);
  }

  #resendOutbox(peer: string): void {
    const unconfirmed = [...this.#pending.values()]
      .filter((p) => p.ackedBy.size === 0)
      .map((p) => p.envelope);
    const queued = [...(this.#state?.outbox ?? []), ...unconfirmed];
    for (const m of queued) this.#sendTo(peer, sealFrame(this.#frameKey, msgFrame(m)));
  }

  #heartbeat(): void {
    if (this.#closed || this.#transport.neighbours().length === 0) return;
    this.#broadcast(this.#hello());
    for (const peer of this.#transport.neighbours()) this.#resendOutbox(peer);
    const state = this.#state;
    if (state) void this.#serial(() => state.savePeers()).catch(() => {});
  }

  #waitForAck(envelope: Envelope, timeoutMs: number): Promise<string | null> {
    return new Promise((resolve) => {
      const waiter: AckWaiter = {
        ...(envelope.to ? { to: envelope.to } : {}),
        resolve: (by) => {
          clearTimeout(timer);
          resolve(by === '' ? null : by);
        },
      };
      const timer = setTimeout(() => {
        // Nobody confirmed in time: stop waiting (the message stays queued), and forget the waiter.
        const rest = (this.#waiters.get(envelope.id) ?? []).filter((w) => w !== waiter);
        if (rest.length > 0) this.#waiters.set(envelope.id, rest);
        else this.#waiters.delete(envelope.id);
        resolve(null);
      }, timeoutMs);
      timer.unref();
      const list = this.#waiters.get(envelope.id) ?? [];
      list.push(waiter);
      this.#waiters.set(envelope.id, list);
    });
  }

  // ---- presence ----------------------------------------------------------------------------

  #isOnline(node: string): boolean {
    if (this.#transport.neighbours().includes(node)) return true;
    const live = this.#live.get(node);
    return live !== undefined && this.#now() - live.lastSeen <= ONLINE_WINDOW_MS;
  }

  #statusOf(node: string, name: string, kind: SenderKind, about: string | undefined): MemberStatus {
    const path = this.#transport.path(node);
    return {
      name,
      node,
      kind,
      ...(about ? { about } : {}),
      online: this.#isOnline(node),
      ...(path ? { path } : {}),
    };
  }

  #updatePresence(): void {
    if (this.#closed) return;
    for (const member of this.members()) {
      const was = this.#online.has(member.node);
      if (member.online && !was) {
        this.#online.add(member.node);
        this.emit('online', member);
      } else if (!member.online && was) {
        this.#online.delete(member.node);
        this.emit('offline', member);
      }
    }
  }

  /** State changes run one after another, so two writers never interleave on one file. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(work, work);
    this.#writes = next.catch(() => {});
    return next;
  }
}
