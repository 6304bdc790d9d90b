// The room member (docs/architecture.md, "The member"): the coordinator of one member of a room, over any
// transport that can reach neighbours. It opens and checks frames and hands the rest to one module
// per concern:
//   - forwarding.ts: frames forwarded once to the other neighbours, duplicates suppressed,
//     a frame budget per neighbour;
//   - presence.ts: who is live and online, the known-members cap;
//   - delivery.ts: how messages are sent and kept (docs/delivery.md), in two halves chosen once:
//     an agent's member sends and keeps durably (durable-delivery.ts: outbox, inbox, acks,
//     catch-up) and sends its person's handed says from memory; a person's papo say/status run
//     sends from memory and keeps nothing (memory-sender.ts: never stores, never acks);
//   - member-names.ts: names held by keys, impostors refused, remembered and told (ADR 0064);
//   - hello-answers.ts: when the others' hellos are answered;
//   - signed-times.ts: which hellos and messages show that their sender is alive (ADR 0093);
//   - peers-save.ts: when peers.json and names.json are written.
// What another member can make this one do is bounded (ADR 0062): frames per neighbour per second,
// members remembered, unread messages kept (past the cap a message is refused, and the sender is
// told), and how often hellos are answered and peers.json is written.
import { EventEmitter } from 'node:events';
import { messageOf, PapoError } from '../errors.js';
import { type Log, type LogTarget, shortId, toLog } from '../log.js';
import type {
  Impostor,
  MemberStatus,
  NetworkHealth,
  RoomMember,
  RoomMemberEvents,
  SendInput,
  SendResult,
} from '../member-api.js';
import type { MemberState } from '../store/profile-store.js';
import type { DecisionOutcome, ReviewDecision } from '../store/review.js';
import type { FrameCodec, SignedFrame } from '../wire/frame-codec.js';
import {
  envelopeOf,
  type HelloFrame,
  MAX_ABOUT_CHARS,
  MAX_BODY_BYTES,
  msgFrame,
  newMessageId,
  type RefusedFrame,
  utf8Length,
} from '../wire/frames.js';
import type { Envelope, LogEntry, SenderKind } from '../wire/messages.js';
import { isMemberName, sameName } from '../wire/names.js';
import { after, type Clock } from './clock.js';
import { Confirmations } from './confirmations.js';
import type { DeliveryHost, Keeper, Sender } from './delivery.js';
import { DurableDelivery } from './durable-delivery.js';
import { Forwarding } from './forwarding.js';
import { HelloAnswers } from './hello-answers.js';
import type { NodeTransport } from './links.js';
import { KnownNames, MAX_KNOWN_NAMES, NameGuard } from './member-names.js';
import { MemorySender } from './memory-sender.js';
import { PeersSave } from './peers-save.js';
import { type KnownPeer, Presence } from './presence.js';
import { SignedTimes } from './signed-times.js';

/** Hello and outbox re-send period while connected (30 s: docs/delivery.md, "The rules"). */
export const HEARTBEAT_MS = 30_000;
const PRESENCE_TICK_MS = 1_000;
/**
 * After the first ack, how long an agent's `send` waits for the other members online it is owed
 * to, so its result can say who has it (ADR 0063). Not a person's say's wait (person-say.ts,
 * SAY_MORE_ACKS_MS, shorter); it also bounds how long a handed say is kept for late acks.
 */
const SEND_MORE_ACKS_MS = 1_000;

export { type KnownPeer, MAX_KNOWN_PEERS, ONLINE_WINDOW_MS } from './presence.js';

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
  state: MemberState | null;
  /** Members known from earlier sessions, for an ephemeral node (read-only; never written). */
  knownPeers?: Record<string, KnownPeer>;
  /** Who each name belongs to (names.json; for an ephemeral node, read-only). */
  names?: KnownNames;
  /** The network's health (the transport's); default: a transport with nothing to report. */
  network?: () => Promise<NetworkHealth>;
  /** The node id of this agent's person (person.key), announced in its hellos (ADR 0064). */
  person?: string;
  /**
   * Signs as this agent's person (person.key): the says a `papo say` hands to this running member
   * (ADR 0102). Without it, sayAsPerson refuses.
   */
  personCodec?: FrameCodec;
  /** Called on close, after the node stopped talking (closes links, releases the lock...). */
  onClose?: () => Promise<void>;
  /** Diagnostics (stderr); never stdout. */
  log?: LogTarget;
  now?: () => number;
  /** When this member joined the room (ms): catch-up never brings it older messages. */
  memberSince?: number;
}

export class RoomNode extends EventEmitter<RoomMemberEvents> implements RoomMember {
  readonly name: string;
  readonly roomId: string;
  readonly nodeId: string;
  readonly kind: SenderKind;
  readonly ephemeral: boolean;
  /** Frames that did not open, validate or check, by reason (they are dropped, never fatal). */
  readonly dropped = { open: 0, invalid: 0, signature: 0, flood: 0, impostor: 0, stale: 0, names: 0 };

  #about: string | undefined;
  #codec: FrameCodec;
  #transport: NodeTransport;
  /** The member's own records here (peers.json, names.json, impostor lines); messages: #delivery. */
  #state: MemberState | null;
  #onClose: (() => Promise<void>) | undefined;
  #network: () => Promise<NetworkHealth>;
  #log: Log;
  #now: () => number;
  /** Live and remembered members, who is online, the known-members cap (presence.ts). */
  #presence: Presence;
  /** When the others' hellos are answered (hello-answers.ts). */
  #helloAnswers: HelloAnswers;
  /** The times we sign, and which of the others' are signs of life (signed-times.ts). */
  #signedTimes: SignedTimes;
  /** Who confirmed what this member and its person sent (confirmations.ts). */
  #confirmations = new Confirmations();
  /** What this member sends, and who confirmed it: durable or in memory, chosen once (delivery.ts). */
  #sender: Sender;
  /** What this member keeps of the room; null for a person's say/status run, which keeps nothing. */
  #keeper: Keeper | null;
  #timers: NodeJS.Timeout[] = [];
  /** Sending, forwarding once, duplicate suppression and per-neighbour budgets (forwarding.ts). */
  #forwarding: Forwarding;
  /** When peers.json and names.json are written (peers-save.ts); none for an ephemeral member. */
  #peersSave: PeersSave | undefined;
  /** Who each name belongs to (names.json). */
  #names: KnownNames;
  /** Who may speak as whom: impostors refused, remembered and told (member-names.ts). */
  #nameGuard: NameGuard;
  #person: string | undefined;
  #personCodec: FrameCodec | undefined;
  /**
   * The person's says handed to this member (ADR 0102), held in memory while their `papo say`
   * waits, as its own ephemeral member would hold them: re-sent to a link that opens until someone
   * confirms, never stored in the outbox (papo say keeps no queue). Null without the person's key.
   */
  #personSays: MemorySender | null;
  /** Whether our hellos say our person reviews (ADR 0081); a change is announced at once. */
  #announcedReview = false;
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
    const known = () => state?.peers ?? knownPeers;
    this.#presence = new Presence({
      self: this.nodeId,
      links: options.transport,
      known,
      now: () => this.#now(),
      online: (member) => this.emit('online', member),
      offline: (member) => this.emit('offline', member),
    });
    this.#names = options.names ?? new KnownNames();
    this.#person = options.person;
    this.#personCodec = options.personCodec;
    // Our own name is ours: a frame that claims it with another key is an impostor's.
    this.#names.own(this.name, this.kind, this.nodeId);
    this.#onClose = options.onClose;
    this.#network =
      options.network ??
      (async () => ({
        signalUrl: '',
        signal: { joined: true, everJoined: true, peers: [], dropped: {} },
        transport: { state: 'running', restarts: 0, failing: false, stallSeconds: 0 },
      }));
    this.#log = toLog(options.log);
    this.#now = options.now ?? Date.now;
    this.#signedTimes = new SignedTimes(() => this.#now());
    const clock: Clock = { now: () => this.#now(), after };
    this.#helloAnswers = new HelloAnswers(clock, (resendOutbox) => {
      this.#broadcast(this.#hello());
      if (resendOutbox) for (const peer of this.#transport.neighbours()) this.#resendOutbox(peer);
    });
    this.#peersSave =
      state === null
        ? undefined
        : new PeersSave({
            state,
            names: this.#names,
            serial: (work) => this.#serial(work),
            clock,
            log: (line) => this.#log(line),
          });
    this.#nameGuard = new NameGuard(this.#names, {
      now: () => this.#now(),
      held: () => this.#peersSave?.soon(),
      // The names of members presence knows are not given up for a newcomer's (ADR 0092).
      spared: (node) => this.#presence.live(node) !== undefined || Object.hasOwn(known(), node),
      refused: (impostor, first) => this.#onImpostor(impostor, first),
      full: (name, kind, node, first) => this.#onNamesFull(name, kind, node, first),
      mayTell: () => !this.ephemeral && !this.#closed,
      tell: (node, msgId) => this.#tellNameTaken(node, msgId),
    });
    const host: DeliveryHost = {
      name: this.name,
      nodeId: this.nodeId,
      codec: options.codec,
      links: options.transport,
      sendTo: (peer: string, sealed: Uint8Array) => this.#sendTo(peer, sealed),
      broadcast: (sealed: Uint8Array) => this.#broadcast(sealed),
      events: this,
      confirmations: this.#confirmations,
      serial: <T>(work: () => Promise<T>) => this.#serial(work),
      onlineNames: () => this.onlineNames(),
      live: (node: string) => this.#presence.live(node),
      isClosed: () => this.#closed,
      now: () => this.#now(),
      log: (line: string) => this.#log(line),
    };
    if (state === null) {
      // A say run's own member: every member that confirms is reported once (papo say lists them all).
      this.#sender = new MemorySender(this.#confirmations, (id, by) => this.emit('delivered', { id, by }));
      this.#keeper = null;
    } else {
      const durable = new DurableDelivery(host, state, options.memberSince ?? 0);
      this.#sender = durable;
      this.#keeper = durable;
    }
    this.#personSays = options.personCodec === undefined ? null : new MemorySender(this.#confirmations);
  }

  /** Loads remembered ids and starts listening; call once. */
  async start(): Promise<void> {
    await this.#keeper?.start();
    this.#transport.on('link-open', (peer) => this.#onLinkOpen(peer));
    this.#transport.on('link-message', (peer, data) => this.#onLinkMessage(peer, data));
    this.#transport.on('link-close', (peer) => {
      this.#presence.linkHeard(peer);
      this.#forwarding.drop(peer);
      this.#keeper?.linkClosed(peer);
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
    return this.#keeper?.unread() ?? [];
  }

  async consume(ids: string[]): Promise<void> {
    await this.#keeper?.consume(ids);
  }

  restore(messages: Envelope[]): Promise<void> {
    // Closed, the profile's lock may already be another process's: nothing is written any more.
    if (this.#closed || this.#keeper === null) return Promise.resolve();
    return this.#keeper.restore(messages);
  }

  async markRepliedTo(msgId: string): Promise<void> {
    await this.#keeper?.markRepliedTo(msgId);
  }

  held(): Envelope[] {
    return this.#keeper?.held() ?? [];
  }

  reviewing(): boolean {
    return this.#keeper?.reviewing() ?? false;
  }

  decide(decision: ReviewDecision): Promise<DecisionOutcome> {
    if (this.#closed) return Promise.reject(new PapoError('io', 'the room member is closed'));
    if (this.#keeper === null) {
      // Holds nothing: every id is unknown here.
      const ids = decision.approve === 'all' ? decision.reject : [...decision.approve, ...decision.reject];
      return Promise.resolve({ approved: [], rejected: [], unknown: ids, full: [] });
    }
    return this.#keeper.decide(decision);
  }

  queuedCount(): number {
    return this.#keeper?.queuedCount() ?? 0;
  }

  /** Who queued messages wait for, with how many each ('' = the first member to confirm). */
  queuedFor(): { name: string; count: number }[] {
    return this.#keeper?.queuedFor() ?? [];
  }

  /**
   * Stops waiting for a member who left for good (`papo forget`): its name leaves every message's
   * `owed` list (a message owed to nobody else leaves the outbox) and the known members, so new
   * messages are not owed to it, and the key that held its name is let go (ADR 0064). If it comes
   * back, its hello makes it a member again.
   */
  async forget(name: string): Promise<{ released: number; peers: number }> {
    const state = this.#state;
    const keeper = this.#keeper;
    if (!state || !keeper || this.#closed) return { released: 0, peers: 0 };
    return this.#serial(async () => {
      const peers = this.#presence.forget((n) => sameName(n, name));
      const released = await keeper.forgetOwed(name);
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
    return (await this.#keeper?.history(limit)) ?? [];
  }

  async send(input: SendInput, ackTimeoutMs: number): Promise<SendResult> {
    if (this.#closed) throw new PapoError('io', 'the room member is closed');
    const unsigned = this.#unsigned(input, this.nodeId, this.kind, () => this.#signedTimes.next());
    // Signed once: the outbox keeps the signature, and every re-send (by us or, later, by the
    // members that stored it) carries the same bytes.
    const signed = this.#codec.sign(msgFrame(unsigned));
    const envelope = envelopeOf(signed);
    const started = this.#now();
    const acked = this.#confirmations.wait(envelope, ackTimeoutMs);
    // Who confirms it is recorded while this send waits: its result lists them.
    const unfollow = this.#confirmations.follow(envelope.id);
    try {
      // Kept before the first broadcast (durably: docs/delivery.md); if it could not be, it must
      // not go out either, and the caller is told.
      const kept = this.#sender.queue(envelope, () => this.members().map((m) => m.name));
      if (kept) await kept;
      this.#broadcast(this.#codec.seal(signed));
      this.#expectAnswers(envelope.to);
      const answer = await acked;
      if (answer.ackedBy !== null)
        await this.#sender.moreAcks(
          envelope.id,
          Math.min(SEND_MORE_ACKS_MS, ackTimeoutMs - (this.#now() - started)),
        );
      const confirmed = this.#confirmations.by(envelope.id);
      return { id: envelope.id, ...answer, acked: confirmed, owed: this.#sender.owedNow(envelope.id) };
    } finally {
      unfollow();
    }
  }

  /**
   * Sends a say of this agent's person, handed over by their `papo say` (ADR 0102): signed with
   * the person's key under the id and time the say chose, kept in this agent's own inbox (as the
   * person's say that came over a link would be: never held from their own agent), broadcast, and
   * confirmed by the acks that come back. Nothing is queued: what was not confirmed when the say
   * ends is the say's to tell. `acked` hears every member that confirms (this agent first).
   */
  async sayAsPerson(
    input: SendInput,
    ackTimeoutMs: number,
    acked: (by: string) => void,
  ): Promise<SendResult> {
    const codec = this.#personCodec;
    const says = this.#personSays;
    const keeper = this.#keeper;
    if (this.#closed || keeper === null || codec === undefined || says === null)
      throw new PapoError('io', 'this room member does not speak for its person');
    const unsigned = this.#unsigned(input, codec.nodeId, 'human', () => this.#now());
    const signed = codec.sign(msgFrame(unsigned));
    const envelope = envelopeOf(signed);
    const id = envelope.id;
    const answer = this.#confirmations.wait(envelope, ackTimeoutMs);
    says.hold(envelope, acked);
    // Kept a little past the wait for the first ack, for the others' acks (person-say.ts).
    const end = setTimeout(() => says.forget(id), ackTimeoutMs + SEND_MORE_ACKS_MS);
    end.unref();
    try {
      // This agent has its person's say as if it came over a link (stored, logged, pushed), and
      // counts as one who confirmed it once it is on disk.
      const kept = keeper.onMsg(envelope);
      this.#log(`sending ${id} for the person`);
      this.#broadcast(codec.seal(signed));
      this.#expectAnswers(envelope.to);
      if (kept && (await kept)) says.onAck(id, this.name);
      const result = await answer;
      // Closed before anyone confirmed: the say is not ours to end any more; its `papo say` sends
      // the same say itself (ADR 0102).
      if (result.ackedBy === null && this.#closed) throw new PapoError('io', 'the room member closed');
      return { id, ...result };
    } catch (err) {
      clearTimeout(end);
      says.forget(id);
      throw err;
    }
  }

  /** The envelope of a message of ours (or our person's) before it is signed; throws if `input` is not one. */
  #unsigned(input: SendInput, node: string, kind: SenderKind, ts: () => number): Envelope {
    const body = input.body;
    if (body.length === 0 || utf8Length(body) > MAX_BODY_BYTES)
      throw new RangeError('body empty or over 48 KiB');
    if (input.to !== undefined && !isMemberName(input.to)) throw new RangeError('invalid `to`');
    return {
      id: input.id ?? newMessageId(),
      from: this.name,
      node,
      kind,
      ...(input.to ? { to: input.to } : {}),
      ...(input.replyTo ? { reply_to: input.replyTo } : {}),
      ts: input.ts ?? ts(),
      body,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#helloAnswers.close();
    this.#keeper?.close();
    this.#confirmations.close();
    // What changed and was not written yet is written now (peers-save.ts).
    this.#peersSave?.close();
    await this.#writes.catch(() => {}); // never rejects (#serial): each failure went to its own caller
    await this.#onClose?.();
  }

  // ---- frames in ---------------------------------------------------------------------------

  #onLinkOpen(peer: string): void {
    if (this.#closed) return;
    this.#sendTo(peer, this.#hello());
    this.#resendOutbox(peer);
    // What we hold, so the peer can send us what we missed (catch-up.ts; a durable member only).
    this.#keeper?.linkOpened(peer);
    this.#updatePresence();
  }

  #onLinkMessage(peer: string, data: Uint8Array): void {
    if (this.#closed) return;
    // Whatever it is, the link carries: it answers.
    this.#presence.linkHeard(peer);
    // Within the neighbour's budget and not seen before (forwarding.ts), else dropped unopened.
    const fingerprint = this.#forwarding.admit(peer, data);
    if (fingerprint === undefined) return;
    let frame: SignedFrame;
    try {
      frame = this.#codec.open(data, this.#now());
    } catch (err) {
      const code = err instanceof PapoError ? err.code : undefined;
      const reason = code === 'open_failed' ? 'open' : code === 'bad_signature' ? 'signature' : 'invalid';
      this.dropped[reason]++;
      this.#log(`dropped a frame from ${shortId(peer)}: ${messageOf(err)}`);
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
        if (frame.node === peer) this.#keeper?.onHave(peer, frame);
        break;
      case 'ack':
        // Only members whose papo stores (agents) ack; the ack must come from the key of `by`.
        // The person's says first: a say's id is the say's own, never one of the outbox's.
        if (
          this.#nameGuard.owns(frame.by, 'agent', frame.node) &&
          !this.#personSays?.onAck(frame.id, frame.by)
        )
          this.#sender.onAck(frame.id, frame.by);
        break;
      case 'refused':
        if (this.#nameGuard.owns(frame.by, 'agent', frame.node)) this.#onRefused(frame);
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
    this.#helloAnswers.left(peer);
    this.#updatePresence();
  }

  #onHello(hello: HelloFrame): void {
    if (hello.node === this.nodeId) return;
    // A hello sealed again later is a copy: it says nothing about who is here now (ADR 0093).
    if (!this.#signedTimes.fresh(hello.node, hello.ts)) {
      this.dropped.stale++;
      this.#log(
        `dropped a hello of ${shortId(hello.node)} signed at ${hello.ts} (our clock: ${this.#now()}): a copy sealed again, or its clock is more than a minute off`,
      );
      return;
    }
    // An ephemeral hello (a person's say or status) proves a name only if it holds it already:
    // a status run, signed by a throwaway key, must not take its person's name, nor be reported,
    // nor seen as a member; it is still answered, so it learns who is here.
    if (hello.ephemeral) {
      const holder = this.#names.holder(hello.name, hello.kind);
      if (holder !== undefined && holder !== hello.node) {
        this.#helloAnswers.hello(hello);
        return;
      }
    } else if (!this.#nameGuard.admits(hello.name, hello.kind, hello.node)) return;
    // Past the cap a new member is heard only once someone long gone is forgotten (presence.ts).
    const { heard, changed } = this.#presence.hello(hello, this.#state !== null);
    if (!heard) return;
    // Only a hello presence let in holds its name (ADR 0092): a flood past the cap holds none.
    if (!hello.ephemeral) {
      this.#nameGuard.owns(hello.name, hello.kind, hello.node);
      // An agent names its person's key: "name (human)" is theirs from now on (a different key
      // already holding it is not replaced; its frames are judged when they come).
      if (hello.kind === 'agent' && hello.person !== undefined)
        this.#nameGuard.hold(hello.name, 'human', hello.person);
    }
    // lastSeen alone is refreshed in memory; the file is written when something a person
    // would see changes (at most every 5 s), and on close.
    if (changed) this.#peersSave?.soon();
    // A newcomer learns about us without waiting 30 s (within the answer budget: hello-answers.ts).
    this.#helloAnswers.hello(hello);
    this.#updatePresence();
    this.emit('heard', hello.node);
  }

  /**
   * A frame claimed a name another key holds (member-names.ts): counted, and the first one from
   * that key logged once and written to the log (`papo log` shows it).
   */
  #onImpostor(impostor: Impostor, first: boolean): void {
    this.dropped.impostor++;
    if (!first) return;
    const { name, kind, node, first: ts } = impostor;
    this.#log(`refused frames from ${shortId(node)}: it claims ${name} (${kind}), which another key holds`);
    const state = this.#state;
    if (state)
      void this.#serial(() => state.appendLog({ ev: 'impostor', name, kind, node, ts })).catch(
        (err: unknown) => this.#log(`could not log the impostor note: ${messageOf(err)}`),
      );
  }

  /**
   * A frame claimed a new name and names.json has no place for one (member-names.ts): counted, and
   * the first one logged; the name is held by nobody, so no later key can take it from a first one.
   */
  #onNamesFull(name: string, kind: SenderKind, node: string, first: boolean): void {
    this.dropped.names++;
    if (first)
      this.#log(
        `refused frames from ${shortId(node)} as ${name} (${kind}): names.json holds ${MAX_KNOWN_NAMES} names, each of a key that spoke here or of a known member (papo forget NAME makes room)`,
      );
  }

  /** Tells an impostor key its name is taken, so its own agent learns why it is not heard. */
  #tellNameTaken(node: string, msgId: string | undefined): void {
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

  /** Keys this member refused for claiming a name another key holds (newest last). */
  impostors(): Impostor[] {
    return this.#nameGuard.impostors();
  }

  /** A member that refuses our frames because another key holds our name, if one said so. */
  nameTakenBy(): string | undefined {
    return this.#nameGuard.nameTakenBy();
  }

  #onMsg(msg: Envelope, fresh: boolean): void {
    if (msg.node === this.nodeId) return;
    if (!this.#nameGuard.owns(msg.from, msg.kind, msg.node, msg.id)) return;
    // A message sealed again later (or re-sent from an outbox) is no sign of life (ADR 0093).
    if (fresh && this.#signedTimes.fresh(msg.node, msg.ts)) this.#presence.heardFrom(msg.node);
    // Stored and acked, or (ephemeral) observed only: delivery.ts. A name under which a message is
    // kept here is never given up for another's (ADR 0092).
    const kept = this.#keeper?.onMsg(msg);
    if (kept) this.#nameGuard.spoke(msg.from, msg.kind, msg.node, kept);
  }

  #onRefused(frame: RefusedFrame): void {
    const { id, by } = frame;
    if (frame.why === 'name_taken') {
      // Our name is held by another key: say so to whoever asks (status, send), once it is ours.
      if (frame.for === this.nodeId && this.#nameGuard.nameTaken(by))
        this.#log(`${by} refuses our frames: the name ${this.name} (${this.kind}) belongs to another key`);
      return;
    }
    if (id === undefined) return;
    if (!this.#personSays?.onRefused(id, by)) this.#sender.onRefused(id, by);
  }

  // ---- frames out --------------------------------------------------------------------------

  #hello(): Uint8Array {
    this.#announcedReview = this.reviewing();
    const hello: HelloFrame = {
      t: 'hello',
      node: this.nodeId,
      name: this.name,
      // Receivers refuse a longer `about` (and with it the whole hello): never send one.
      ...(this.#about ? { about: this.#about.slice(0, MAX_ABOUT_CHARS) } : {}),
      kind: this.kind,
      ephemeral: this.ephemeral,
      ts: this.#signedTimes.next(),
      ...(this.#person ? { person: this.#person } : {}),
      ...(this.#announcedReview ? { review: true as const } : {}),
    };
    return this.#codec.signAndSeal(hello);
  }

  #sendTo(peer: string, sealed: Uint8Array): void {
    this.#forwarding.sendTo(peer, sealed);
  }

  #broadcast(sealed: Uint8Array): void {
    this.#forwarding.broadcast(sealed);
  }

  /**
   * What we sent and is not yet confirmed, to `peer` again (each sender decides what), and the
   * person's says not confirmed yet, as their own ephemeral member would re-send them. Each goes
   * with the signature it was sent with (the person's, for a say).
   */
  #resendOutbox(peer: string): void {
    const again = [...this.#sender.toResend(peer), ...(this.#personSays?.toResend() ?? [])];
    for (const m of again) {
      this.#sendTo(peer, this.#codec.seal(this.#signedCopy(m)));
      this.#presence.expectAnswer(peer);
    }
  }

  /** A message just went to every neighbour: those it is for answer it (presence: "not answering"). */
  #expectAnswers(to: string | undefined): void {
    for (const peer of this.#transport.neighbours()) {
      const name = this.#presence.live(peer)?.name;
      if (to === undefined || (name !== undefined && sameName(name, to))) this.#presence.expectAnswer(peer);
    }
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
    this.#keeper?.heartbeat();
    this.#peersSave?.now();
  }

  // ---- presence ----------------------------------------------------------------------------

  #updatePresence(): void {
    if (this.#closed) return;
    this.#presence.update();
    // The person turned review on or off (papo review): the room learns it now, not in 30 s.
    if (this.reviewing() !== this.#announcedReview && this.#transport.neighbours().length > 0)
      this.#broadcast(this.#hello());
  }

  /** State changes run one after another, so two writers never interleave on one file. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(work, work);
    // The caller sees its own failure through `next`; the chain goes on to the next write.
    this.#writes = next.catch(() => {});
    return next;
  }
}
