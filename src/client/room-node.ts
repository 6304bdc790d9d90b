// The room member (the book's `Node`): presence, the outbox, acks, dedupe and forwarding, over
// any transport that can reach neighbours. The delivery rules are docs/delivery.md (from the
// book; per recipient since ADR 0063, signed since ADR 0064):
//   - send writes the outbox (durably) before the first broadcast;
//   - a receiver stores inbox + log, then acks; an ack means "it is on their disk";
//   - a message is owed to every member known when it is sent (with `to`: the recipient); each
//     one's ack takes that name off, and it leaves the outbox when nobody is owed (knowing nobody,
//     the first valid ack clears it: the book's rule);
//   - the outbox is re-sent when a neighbour connects and every 30 s, while someone it is owed to
//     may be reached;
//   - on a new link both sides swap a digest of the messages they hold and send each other what
//     the other lacks (catch-up.ts), so a member gets what it missed even when the sender is gone;
//   - duplicates are dropped by id (ids remembered across restarts) and acked again, so a lost
//     ack heals by itself;
//   - ephemeral identities (papo say/status) never store and never ack.
// What another member can make this one do is bounded (ADR 0062): frames per neighbour per second,
// members remembered, unread messages kept (past the cap a message is refused, and the sender is
// told), and how often hellos are answered and peers.json is written.
// Frames are forwarded once to the other neighbours, so a member reachable only through another
// member still gets everything (the book's gossip guarantee, here over a data-channel mesh).
import { EventEmitter } from 'node:events';
import { CATCH_UP_LOG_ENTRIES, CatchUpPacer, digestOf, missingFor, RecentMessages } from './catch-up.js';
import { PapoError } from './errors.js';
import { Forwarding } from './forwarding.js';
import type { FrameCodec, SignedFrame } from './frame-codec.js';
import {
  envelopeOf,
  type HaveFrame,
  type HelloFrame,
  MAX_ABOUT_CHARS,
  MAX_BODY_BYTES,
  msgFrame,
  newMessageId,
  type RefusedFrame,
  utf8Length,
} from './frames.js';
import type {
  Impostor,
  LinkPath,
  MemberStatus,
  NetworkHealth,
  RoomMember,
  RoomMemberEvents,
  SendInput,
  SendResult,
} from './member-api.js';
import { KnownNames, nameKey } from './member-names.js';
import type { Envelope, LogEntry, SenderKind } from './messages.js';
import { isMemberName, sameName } from './names.js';
import {
  ackCounts,
  afterAck,
  envelopeOfQueued,
  forgetInOutbox,
  owedAtSend,
  owedSummary,
  type QueuedMessage,
} from './outbox.js';
import { type KnownPeer, MAX_KNOWN_PEERS, Presence } from './presence.js';

/** Hello and outbox re-send period while connected (the book: 30 s). */
export const HEARTBEAT_MS = 30_000;
const PRESENCE_TICK_MS = 1_000;
/**
 * Newcomers' hellos are answered at once up to HELLO_ANSWER_BURST times, then once a second: a
 * person's `papo say` runs, seconds apart, are answered at once; a flood of hellos gets one answer
 * a second.
 */
const HELLO_ANSWER_INTERVAL_MS = 1_000;
const HELLO_ANSWER_BURST = 5;
/** peers.json is written at most this often (and on close); presence lives in memory. */
const PEERS_SAVE_INTERVAL_MS = 5_000;
/** Impostor keys remembered (for status and log), and how often one is told its name is taken. */
const MAX_IMPOSTORS = 64;
const TELL_IMPOSTOR_EVERY_MS = 30_000;
/**
 * After the first ack, how long `send` waits for the other members online it is owed to, so its
 * result can say who has it (ADR 0063).
 */
const MORE_ACKS_MS = 1_000;
/**
 * A neighbour's digest is answered at most this often (it sends one when the link opens and with
 * every heartbeat): a member reachable only through one that caught up later still gets it.
 */
const DIGEST_ANSWER_INTERVAL_MS = 25_000;

/**
 * The links to neighbours, as the node sees them (the mesh, in this process or in the transport
 * process: src/client/transport.ts).
 */
export interface NodeTransport extends EventEmitter<TransportEvents> {
  send(peer: string, data: Uint8Array): boolean;
  neighbours(): string[];
  path(peer: string): LinkPath | undefined;
}

// Still exported from here, as before the split (the node's public surface does not change).
export { FRAME_BURST, FRAMES_PER_SECOND } from './forwarding.js';
export { type KnownPeer, MAX_KNOWN_PEERS, ONLINE_WINDOW_MS } from './presence.js';

export interface TransportEvents {
  'link-open': [string];
  'link-message': [string, Uint8Array];
  'link-close': [string];
  /** The peer left the room's topic on the signal server: its goodbye. */
  'peer-left': [string];
}

/** Durable state of a non-ephemeral member (implemented over the profile store). */
export interface NodeState {
  /** Unread messages, oldest first. */
  readonly inbox: readonly Envelope[];
  outbox: QueuedMessage[];
  peers: Record<string, KnownPeer>;
  /** Stores a message durably; PapoError 'inbox_full' (nothing stored) past the inbox's cap. */
  addToInbox(msg: Envelope): Promise<void>;
  removeFromInbox(ids: Iterable<string>): Promise<void>;
  saveOutbox(): Promise<void>;
  savePeers(): Promise<void>;
  saveNames(names: Record<string, string>): Promise<void>;
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
  /** Seals, signs, opens and checks frames: the room's frame key and this member's identity. */
  codec: FrameCodec;
  transport: NodeTransport;
  /** null for an ephemeral identity: it never stores, never acks, is never remembered. */
  state: NodeState | null;
  /** Members known from earlier sessions, for an ephemeral node (read-only; never written). */
  knownPeers?: Record<string, KnownPeer>;
  /** Who each name belongs to (names.json; for an ephemeral node, read-only). */
  names?: KnownNames;
  /** The network's health (the transport's); default: a transport with nothing to report. */
  network?: () => Promise<NetworkHealth>;
  /** The node id of this agent's person (person.key), announced in its hellos (ADR 0064). */
  person?: string;
  /** Called on close, after the node stopped talking (closes links, releases the lock...). */
  onClose?: () => Promise<void>;
  /** Diagnostics (stderr); never stdout. */
  log?: (line: string) => void;
  now?: () => number;
  /** When this member joined the room (ms): catch-up never brings it older messages. */
  memberSince?: number;
}

interface AckWaiter {
  to?: string;
  /** An ack from `by`; '' when the node closes. */
  resolve: (by: string) => void;
  /** The recipient refused the message (its inbox is full). */
  refuse: (by: string) => void;
}

/** Answers we may still give now (a token bucket). */
interface AnswerBudget {
  tokens: number;
  at: number;
}

export class RoomNode extends EventEmitter<RoomMemberEvents> implements RoomMember {
  readonly name: string;
  readonly roomId: string;
  readonly nodeId: string;
  readonly kind: SenderKind;
  readonly ephemeral: boolean;
  /** Frames that did not open, validate or check, by reason (they are dropped, never fatal). */
  readonly dropped = { open: 0, invalid: 0, signature: 0, flood: 0, impostor: 0 };

  #about: string | undefined;
  #codec: FrameCodec;
  #transport: NodeTransport;
  #state: NodeState | null;
  #onClose: (() => Promise<void>) | undefined;
  #network: () => Promise<NetworkHealth>;
  #log: (line: string) => void;
  #now: () => number;
  /** Live and remembered members, who is online, the known-members cap (presence.ts). */
  #presence: Presence;
  #helloAnswered = new Set<string>();
  #seenIds = new Set<string>();
  /** Messages being stored now: a copy arriving meanwhile is acked only once the store is done. */
  #storing = new Map<string, Promise<boolean>>();
  #waiters = new Map<string, AckWaiter[]>();
  /** Ephemeral sends, kept in memory only, with who acked them (papo say reports everyone). */
  #pending = new Map<string, { envelope: Envelope; ackedBy: Set<string> }>();
  #timers: NodeJS.Timeout[] = [];
  /** Sending, forwarding once, duplicate suppression and per-neighbour budgets (forwarding.ts). */
  #forwarding: Forwarding;
  #helloAnswers: AnswerBudget = { tokens: HELLO_ANSWER_BURST, at: 0 };
  #helloAnswer: { timer: NodeJS.Timeout; resendOutbox: boolean } | undefined;
  #peersSave: NodeJS.Timeout | undefined;
  #peersDirty = false;
  #names: KnownNames;
  #person: string | undefined;
  /** Keys refused for claiming a name another key holds, by `name (kind) node`. */
  #impostors = new Map<string, Impostor>();
  /** When we last told each impostor key its name is taken (once a 30 s, not once a frame). */
  #toldImpostor = new Map<string, number>();
  /** Another key holds our name: the others refuse what we send (ADR 0064). */
  #nameTaken: { by: string; at: number } | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** What this member stored or sent lately, for other members' catch-up (catch-up.ts). */
  #recent: RecentMessages;
  #catchUp: CatchUpPacer;
  /** When each link's digest was last answered (at most every DIGEST_ANSWER_INTERVAL_MS). */
  #digestAnswered = new Map<string, number>();
  #memberSince: number;

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
    this.#codec = options.codec;
    this.#transport = options.transport;
    this.#forwarding = new Forwarding(options.transport, {
      now: () => this.#now(),
      log: (line) => this.#log(line),
      onFlood: () => this.dropped.flood++,
    });
    this.#state = options.state;
    const knownPeers = options.knownPeers ?? {};
    const state = options.state;
    this.#presence = new Presence({
      self: this.nodeId,
      links: options.transport,
      known: () => state?.peers ?? knownPeers,
      now: () => this.#now(),
      online: (member) => this.emit('online', member),
      offline: (member) => this.emit('offline', member),
    });
    this.#names = options.names ?? new KnownNames();
    this.#person = options.person;
    // Our own name is ours: a frame that claims it with another key is an impostor's.
    this.#names.claim(this.name, this.kind, this.nodeId);
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
    this.#memberSince = options.memberSince ?? 0;
    this.#recent = new RecentMessages(this.#now);
    this.#catchUp = new CatchUpPacer((peer, msg) => {
      // Sent with its sender's own signature (checked as the msg it was: frame-codec.ts); a message
      // stored before frames were signed has none, and cannot be vouched for.
      if (msg.sig === undefined) return;
      try {
        this.#sendTo(peer, this.#codec.seal({ ...msg, t: 'missed' } as SignedFrame));
      } catch (err) {
        // A message whose frame was at the 64 KiB limit does not fit with the longer `t`.
        this.#log(`catch-up: could not send ${msg.id}: ${(err as Error).message}`);
      }
    }, this.#now);
  }

  /** Loads remembered ids and starts listening; call once. */
  async start(): Promise<void> {
    if (this.#state) {
      for (const id of await this.#state.inboundIds()) this.#seenIds.add(id);
      try {
        this.#recent.load(await this.#state.readLogTail(CATCH_UP_LOG_ENTRIES));
      } catch (err) {
        this.#log(`could not read the log for catch-up: ${(err as Error).message}`);
      }
    }
    this.#transport.on('link-open', (peer) => this.#onLinkOpen(peer));
    this.#transport.on('link-message', (peer, data) => this.#onLinkMessage(peer, data));
    this.#transport.on('link-close', (peer) => {
      this.#forwarding.drop(peer);
      this.#digestAnswered.delete(peer);
      this.#catchUp.drop(peer);
      this.#updatePresence();
    });
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
    return this.#presence.members();
  }

  /** Members seen on the room right now, including other ephemeral identities. */
  liveMembers(): MemberStatus[] {
    return this.#presence.liveMembers();
  }

  onlineNames(): string[] {
    return this.#presence.onlineNames();
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
    await this.#serial(() => state.removeFromInbox(drop));
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

  /** Who queued messages wait for, with how many each ('' = the first member to confirm). */
  queuedFor(): { name: string; count: number }[] {
    return owedSummary(this.#state?.outbox ?? []);
  }

  /**
   * Stops waiting for a member who left for good (`papo forget`): its name leaves every message's
   * `owed` list (a message owed to nobody else leaves the outbox) and the known members, so new
   * messages are not owed to it, and the key that held its name is let go (ADR 0064). If it comes
   * back, its hello makes it a member again.
   */
  async forget(name: string): Promise<{ released: number; peers: number }> {
    const state = this.#state;
    if (!state || this.#closed) return { released: 0, peers: 0 };
    return this.#serial(async () => {
      const { outbox, released } = forgetInOutbox(state.outbox, name);
      const peers = this.#presence.forget((n) => sameName(n, name));
      if (released > 0) {
        state.outbox = outbox;
        await state.saveOutbox();
      }
      if (peers > 0) await state.savePeers();
      // The key that held the name goes too: whoever shows it next holds it (ADR 0064).
      if (this.#names.forget(name)) await state.saveNames(this.#names.saved());
      this.#updatePresence();
      return { released, peers };
    });
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
    const unsigned: Envelope = {
      id: newMessageId(),
      from: this.name,
      node: this.nodeId,
      kind: this.kind,
      ...(input.to ? { to: input.to } : {}),
      ...(input.replyTo ? { reply_to: input.replyTo } : {}),
      ts: this.#now(),
      body,
    };
    // Signed once: the outbox keeps the signature, and every re-send (by us or, later, by the
    // members that stored it) carries the same bytes.
    const signed = this.#codec.sign(msgFrame(unsigned));
    const envelope = envelopeOf(signed);
    const started = this.#now();
    const acked = this.#waitForAck(envelope, ackTimeoutMs);
    const ackers: string[] = [];
    const onDelivered = (d: { id: string; by: string }) => {
      if (d.id === envelope.id && !ackers.some((n) => sameName(n, d.by))) ackers.push(d.by);
    };
    this.on('delivered', onDelivered);
    const state = this.#state;
    if (state) {
      // Owed to every member known now (ADR 0063); knowing nobody, the first ack clears it.
      const owed = owedAtSend(
        this.members().map((m) => m.name),
        this.name,
        envelope.to,
      );
      const queued: QueuedMessage = { ...envelope, ...(owed ? { owed } : {}) };
      // Outbox before the first broadcast: a crash after this line still delivers (docs/delivery.md).
      await this.#serial(async () => {
        state.outbox.push(queued);
        try {
          await state.saveOutbox();
        } catch (err) {
          // Not queued on disk: the caller is told it failed, so it must not go out either.
          state.outbox = state.outbox.filter((m) => m.id !== envelope.id);
          this.off('delivered', onDelivered);
          throw err;
        }
        await state.appendLog({ ev: 'out', msg: envelope });
      }).catch((err: unknown) => {
        this.off('delivered', onDelivered);
        throw err;
      });
      this.#recent.add(envelope);
    } else {
      this.#pending.set(envelope.id, { envelope, ackedBy: new Set() });
    }
    this.#broadcast(this.#codec.seal(signed));
    try {
      const answer = await acked;
      if (answer.ackedBy !== null && state) {
        // Those online it is still owed to usually confirm within moments: wait a little for them,
        // so the result can say who has it and who gets it later.
        const left = Math.min(MORE_ACKS_MS, ackTimeoutMs - (this.#now() - started));
        await this.#until(left, () => {
          const online = this.onlineNames();
          return this.#owedNow(envelope.id).every((n) => !online.some((o) => sameName(o, n)));
        });
      }
      return { id: envelope.id, ...answer, acked: [...ackers], owed: this.#owedNow(envelope.id) };
    } finally {
      this.off('delivered', onDelivered);
    }
  }

  /** Names a queued message is still owed to ([] when it left the outbox or has no `owed`). */
  #owedNow(id: string): string[] {
    return [...(this.#state?.outbox.find((m) => m.id === id)?.owed ?? [])];
  }

  /** Resolves when `done()` holds (checked at each counted ack) or after `ms`. */
  #until(ms: number, done: () => boolean): Promise<void> {
    if (ms <= 0 || done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.off('delivered', check);
        resolve();
      };
      const check = () => {
        if (done() || this.#closed) finish();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      this.on('delivered', check);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    if (this.#helloAnswer) clearTimeout(this.#helloAnswer.timer);
    clearTimeout(this.#peersSave);
    this.#catchUp.close();
    for (const waiters of this.#waiters.values()) for (const w of waiters) w.resolve('');
    this.#waiters.clear();
    const state = this.#state;
    if (state && (this.#peersDirty || this.#names.changed))
      void this.#serial(() => this.#savePeersAndNames(state)).catch(() => {});
    await this.#writes.catch(() => {});
    await this.#onClose?.();
  }

  // ---- frames in ---------------------------------------------------------------------------

  #onLinkOpen(peer: string): void {
    if (this.#closed) return;
    this.#sendTo(peer, this.#hello());
    this.#resendOutbox(peer);
    // What we hold, so the peer can send us what we missed (catch-up.ts); an ephemeral member
    // holds nothing and asks for nothing.
    if (this.#state) this.#sendTo(peer, this.#codec.signAndSeal(this.#digest()));
    this.#updatePresence();
  }

  #digest(): HaveFrame {
    return { ...digestOf(this.#recent.messages(), this.#memberSince, this.#now()), node: this.nodeId };
  }

  /**
   * A neighbour's digest: queue what it lacks (within catch-up.ts's bounds, at most once per link
   * every DIGEST_ANSWER_INTERVAL_MS).
   */
  #onHave(peer: string, have: HaveFrame): void {
    if (!this.#state) return;
    const now = this.#now();
    const last = this.#digestAnswered.get(peer);
    if (last !== undefined && now - last < DIGEST_ANSWER_INTERVAL_MS) return;
    const live = this.#presence.live(peer);
    if (live?.ephemeral) return;
    this.#digestAnswered.set(peer, now);
    const missing = missingFor(this.#recent.messages(), have, { node: peer, name: live?.name });
    if (missing.length === 0) return;
    const queued = this.#catchUp.enqueue(peer, missing);
    this.#log(`catch-up: sending ${queued} of ${missing.length} missed messages to ${peer.slice(0, 10)}`);
  }

  #onLinkMessage(peer: string, data: Uint8Array): void {
    if (this.#closed) return;
    // Within the neighbour's budget and not seen before (forwarding.ts), else dropped unopened.
    const fingerprint = this.#forwarding.admit(peer, data);
    if (fingerprint === undefined) return;
    let frame: SignedFrame;
    try {
      frame = this.#codec.open(data);
    } catch (err) {
      const code = err instanceof PapoError ? err.code : undefined;
      const reason = code === 'open_failed' ? 'open' : code === 'bad_signature' ? 'signature' : 'invalid';
      this.dropped[reason]++;
      this.#log(`dropped a frame from ${peer.slice(0, 10)}: ${(err as Error).message}`);
      return;
    }
    // Catch-up frames are between two neighbours only: the others hold their own digests.
    this.#forwarding.accept(peer, data, fingerprint, frame.t !== 'have' && frame.t !== 'missed');
    switch (frame.t) {
      case 'hello':
        this.#onHello(frame);
        break;
      case 'msg':
        this.#onMsg(envelopeOf(frame), true);
        break;
      case 'missed':
        // Stored and acked like a msg, but it says nothing about its sender being online.
        this.#onMsg(envelopeOf(frame), false);
        break;
      case 'have':
        // A digest is never forwarded: it speaks for the neighbour that signed it, or for nobody.
        if (frame.node === peer) this.#onHave(peer, frame);
        break;
      case 'ack':
        // Only members whose papo stores (agents) ack; the ack must come from the key of `by`.
        if (this.#ownsName(frame.by, 'agent', frame.node)) this.#onAck(frame.id, frame.by);
        break;
      case 'refused':
        if (this.#ownsName(frame.by, 'agent', frame.node)) this.#onRefused(frame);
        break;
    }
  }

  /**
   * A member that closes leaves the signal server's topic: it is offline from then on, not 75 s
   * later (it comes back online with its next hello or message, directly or forwarded).
   */
  #onPeerLeft(peer: string): void {
    this.#presence.left(peer);
    // If it comes back, its first hello is answered again (it may have been away a while).
    this.#helloAnswered.delete(peer);
    this.#updatePresence();
  }

  #onHello(hello: HelloFrame): void {
    if (hello.node === this.nodeId) return;
    // An ephemeral hello (a person's say or status) proves a name only if it holds it already:
    // a status run, signed by a throwaway key, must not take its person's name, nor be reported,
    // nor seen as a member; it is still answered, so it learns who is here.
    if (hello.ephemeral) {
      const holder = this.#names.holder(hello.name, hello.kind);
      if (holder !== undefined && holder !== hello.node) {
        this.#answerFirstHello(hello);
        return;
      }
    } else if (!this.#ownsName(hello.name, hello.kind, hello.node)) return;
    // An agent names its person's key: "name (human)" is theirs from now on (a different key
    // already holding it is not replaced; its frames are judged when they come).
    if (!hello.ephemeral && hello.kind === 'agent' && hello.person !== undefined) {
      if (this.#names.claim(hello.name, 'human', hello.person) === 'new') this.#savePeersSoon();
    }
    // Past the cap a new member is heard only once someone long gone is forgotten (presence.ts).
    const { heard, changed } = this.#presence.hello(hello, this.#state !== null);
    if (!heard) return;
    // lastSeen alone is refreshed in memory; the file is written when something a person
    // would see changes (at most every 5 s), and on close.
    if (changed) this.#savePeersSoon();
    this.#answerFirstHello(hello);
    this.#updatePresence();
  }

  /** Answers a first hello, so a newcomer learns about us without waiting 30 s. */
  #answerFirstHello(hello: HelloFrame): void {
    if (this.#helloAnswered.has(hello.node)) return;
    this.#helloAnswered.add(hello.node);
    if (this.#helloAnswered.size > MAX_KNOWN_PEERS * 4) this.#helloAnswered.clear();
    this.#answerHello(!hello.ephemeral);
  }

  /**
   * Our hello (and, for a new durable member, the outbox: it may be the recipient of something
   * queued) to every neighbour: at once while the answer budget lasts, else when it next refills,
   * and any number of newcomers meanwhile share that one answer.
   */
  #answerHello(resendOutbox: boolean): void {
    if (this.#helloAnswer) {
      this.#helloAnswer.resendOutbox ||= resendOutbox;
      return;
    }
    const budget = this.#helloAnswers;
    const refill = () => {
      const now = this.#now();
      budget.tokens = Math.min(
        HELLO_ANSWER_BURST,
        budget.tokens + (now - budget.at) / HELLO_ANSWER_INTERVAL_MS,
      );
      budget.at = now;
    };
    const answer = (withOutbox: boolean) => {
      this.#helloAnswer = undefined;
      if (this.#closed) return;
      refill();
      budget.tokens = Math.max(0, budget.tokens - 1);
      this.#broadcast(this.#hello());
      if (withOutbox) for (const peer of this.#transport.neighbours()) this.#resendOutbox(peer);
    };
    refill();
    if (budget.tokens >= 1) {
      answer(resendOutbox);
      return;
    }
    const wait = (1 - budget.tokens) * HELLO_ANSWER_INTERVAL_MS;
    const timer = setTimeout(() => answer(this.#helloAnswer?.resendOutbox ?? resendOutbox), wait);
    timer.unref();
    this.#helloAnswer = { timer, resendOutbox };
  }

  /**
   * Whether `node` may speak as `name` (of `kind`): it holds the name, or nobody did (it holds it
   * from now on). Otherwise the frame is an impostor's: counted, logged once, shown to the person,
   * and the impostor told (so its own agent learns why it is not heard).
   */
  #ownsName(name: string, kind: SenderKind, node: string, msgId?: string): boolean {
    const claim = this.#names.claim(name, kind, node);
    if (claim === 'new' && this.#names.changed) this.#savePeersSoon();
    if (claim !== 'taken') return true;
    this.dropped.impostor++;
    const key = `${nameKey(name, kind)} ${node}`;
    const now = this.#now();
    const seen = this.#impostors.get(key);
    if (seen) {
      seen.last = now;
      seen.frames++;
    } else {
      if (this.#impostors.size >= MAX_IMPOSTORS)
        this.#impostors.delete(this.#impostors.keys().next().value as string);
      this.#impostors.set(key, { name, kind, node, first: now, last: now, frames: 1 });
      this.#log(
        `refused frames from ${node.slice(0, 10)}: it claims ${name} (${kind}), which another key holds`,
      );
      const state = this.#state;
      if (state)
        void this.#serial(() => state.appendLog({ ev: 'impostor', name, kind, node, ts: now })).catch(
          () => {},
        );
    }
    const told = this.#toldImpostor.get(node) ?? 0;
    if (now - told >= TELL_IMPOSTOR_EVERY_MS && !this.ephemeral && !this.#closed) {
      if (this.#toldImpostor.size >= MAX_IMPOSTORS) this.#toldImpostor.clear();
      this.#toldImpostor.set(node, now);
      this.#broadcast(
        this.#codec.signAndSeal({
          t: 'refused',
          ...(msgId ? { id: msgId } : {}),
          for: node,
          by: this.name,
          node: this.nodeId,
          why: 'name_taken',
        }),
      );
    }
    return false;
  }

  /** Keys this member refused for claiming a name another key holds (newest last). */
  impostors(): Impostor[] {
    return [...this.#impostors.values()];
  }

  /** A member that refuses our frames because another key holds our name, if one said so. */
  nameTakenBy(): string | undefined {
    return this.#nameTaken?.by;
  }

  #savePeersSoon(): void {
    this.#peersDirty = true;
    if (this.#peersSave !== undefined || this.#closed) return;
    const state = this.#state;
    if (!state) return;
    this.#peersSave = setTimeout(() => {
      this.#peersSave = undefined;
      this.#peersDirty = false;
      void this.#serial(() => this.#savePeersAndNames(state)).catch((err: unknown) =>
        this.#log(`could not save peers.json: ${(err as Error).message}`),
      );
    }, PEERS_SAVE_INTERVAL_MS);
    this.#peersSave.unref();
  }

  async #savePeersAndNames(state: NodeState): Promise<void> {
    await state.savePeers();
    if (this.#names.changed) await state.saveNames(this.#names.saved());
  }

  #onMsg(msg: Envelope, fresh: boolean): void {
    if (msg.node === this.nodeId) return;
    if (!this.#ownsName(msg.from, msg.kind, msg.node, msg.id)) return;
    if (fresh) this.#presence.heardFrom(msg.node);
    const state = this.#state;
    if (state === null) return; // ephemeral: observe only, never store nor ack
    if (msg.to !== undefined && !sameName(msg.to, this.name)) return;
    if (this.#seenIds.has(msg.id)) {
      // Stored before: ack again, so an ack that was lost heals (docs/delivery.md).
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
      await state.addToInbox(msg);
      try {
        await state.appendLog({ ev: 'in', msg });
      } catch (err) {
        // The inbox holds it, so it is safe for the agent; only history misses the line.
        this.#log(`could not log message ${msg.id}: ${(err as Error).message}`);
      }
    }).then(
      () => {
        this.#seenIds.add(msg.id);
        this.#recent.add(msg);
        this.#storing.delete(msg.id);
        this.#ack(msg.id);
        this.emit('message', msg);
        return true;
      },
      (err: unknown) => {
        // Not stored, so not acked: the sender keeps it queued and sends it again.
        this.#storing.delete(msg.id);
        this.#log(`could not store message ${msg.id}: ${(err as Error).message}`);
        // A full inbox is told, so the sender can say why (not acked, not seen: a later copy,
        // once the agent has read, is stored).
        if (err instanceof PapoError && err.code === 'inbox_full' && !this.#closed)
          this.#broadcast(
            this.#codec.signAndSeal({
              t: 'refused',
              id: msg.id,
              by: this.name,
              node: this.nodeId,
              why: 'inbox_full',
            }),
          );
        return false;
      },
    );
    this.#storing.set(msg.id, store);
  }

  #ack(id: string): void {
    if (!this.#closed)
      this.#broadcast(this.#codec.signAndSeal({ t: 'ack', id, by: this.name, node: this.nodeId }));
  }

  #onAck(id: string, by: string): void {
    const state = this.#state;
    const pending = this.#pending.get(id);
    const queued = state?.outbox.find((m) => m.id === id) ?? pending?.envelope;
    if (!queued) return;
    // Only a member it is owed to (with `to`: the recipient) takes itself off (ADR 0063).
    if (!ackCounts(queued, by)) return;
    const resolveWaiters = () => {
      for (const w of this.#waiters.get(id) ?? []) w.resolve(by);
      this.#waiters.delete(id);
    };
    if (state) {
      // The sender learns "delivered" once the outbox and the log say so: history agrees at once.
      void this.#serial(async () => {
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

  #onRefused(frame: RefusedFrame): void {
    const { id, by } = frame;
    if (frame.why === 'name_taken') {
      // Our name is held by another key: say so to whoever asks (status, send), once it is ours.
      if (frame.for === this.nodeId && this.#nameTaken === undefined) {
        this.#nameTaken = { by, at: this.#now() };
        this.#log(`${by} refuses our frames: the name ${this.name} (${this.kind}) belongs to another key`);
      }
      return;
    }
    if (id === undefined) return;
    const queued = this.#state?.outbox.find((m) => m.id === id) ?? this.#pending.get(id)?.envelope;
    if (!queued) return;
    // Only a recipient can refuse: one it is owed to (the one named in `to`).
    if (!ackCounts(queued, by)) return;
    for (const w of this.#waiters.get(id) ?? []) w.refuse(by);
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
      ...(this.#person ? { person: this.#person } : {}),
    };
    return this.#codec.signAndSeal(hello);
  }

  #sendTo(peer: string, sealed: Uint8Array): void {
    this.#forwarding.sendTo(peer, sealed);
  }

  #broadcast(sealed: Uint8Array): void {
    this.#forwarding.broadcast(sealed);
  }

  #resendOutbox(peer: string): void {
    const unconfirmed = [...this.#pending.values()]
      .filter((p) => p.ackedBy.size === 0)
      .map((p) => p.envelope);
    // A message owed only to members who are offline waits for one of them to come back (their
    // hello re-sends the outbox): re-sending it to the others would only bring their acks again.
    const online = this.onlineNames();
    const peerName = this.#presence.live(peer)?.name ?? this.#state?.peers[peer]?.name;
    const reachable = (m: QueuedMessage) =>
      m.owed === undefined ||
      m.owed.some(
        (n) => (peerName !== undefined && sameName(n, peerName)) || online.some((o) => sameName(o, n)),
      );
    const queued = [...(this.#state?.outbox ?? []).filter(reachable).map(envelopeOfQueued), ...unconfirmed];
    for (const m of queued) this.#sendTo(peer, this.#codec.seal(this.#signedCopy(m)));
  }

  /** A queued message as signed when sent (one queued by papo 0.1, unsigned, is signed now). */
  #signedCopy(m: Envelope): SignedFrame {
    const frame = msgFrame(m);
    return frame.sig === undefined ? this.#codec.sign(frame) : (frame as SignedFrame);
  }

  #heartbeat(): void {
    if (this.#closed || this.#transport.neighbours().length === 0) return;
    this.#broadcast(this.#hello());
    for (const peer of this.#transport.neighbours()) this.#resendOutbox(peer);
    const state = this.#state;
    if (state) {
      // What we hold, again: a neighbour may have caught up since the link opened (catch-up.ts).
      const digest = this.#codec.signAndSeal(this.#digest());
      for (const peer of this.#transport.neighbours()) this.#transport.send(peer, digest);
      void this.#serial(() => this.#savePeersAndNames(state)).catch(() => {});
    }
  }

  /**
   * The first ack within `timeoutMs`; a refusal ends the wait at once for a message with `to`,
   * and is reported at the timeout for one to the whole room (another member may still ack).
   */
  #waitForAck(
    envelope: Envelope,
    timeoutMs: number,
  ): Promise<{ ackedBy: string | null; refusedBy: string | null }> {
    return new Promise((resolve) => {
      let refusedBy: string | null = null;
      const forget = () => {
        const rest = (this.#waiters.get(envelope.id) ?? []).filter((w) => w !== waiter);
        if (rest.length > 0) this.#waiters.set(envelope.id, rest);
        else this.#waiters.delete(envelope.id);
      };
      const waiter: AckWaiter = {
        ...(envelope.to ? { to: envelope.to } : {}),
        resolve: (by) => {
          clearTimeout(timer);
          resolve({ ackedBy: by === '' ? null : by, refusedBy: by === '' ? refusedBy : null });
        },
        refuse: (by) => {
          refusedBy ??= by;
          if (envelope.to === undefined) return;
          clearTimeout(timer);
          forget();
          resolve({ ackedBy: null, refusedBy });
        },
      };
      const timer = setTimeout(() => {
        // Nobody confirmed in time: stop waiting (the message stays queued), and forget the waiter.
        forget();
        resolve({ ackedBy: null, refusedBy });
      }, timeoutMs);
      timer.unref();
      const list = this.#waiters.get(envelope.id) ?? [];
      list.push(waiter);
      this.#waiters.set(envelope.id, list);
    });
  }

  // ---- presence ----------------------------------------------------------------------------

  #updatePresence(): void {
    if (!this.#closed) this.#presence.update();
  }

  /** State changes run one after another, so two writers never interleave on one file. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(work, work);
    this.#writes = next.catch(() => {});
    return next;
  }
}
