// Who may use a member's loopback TURN helpers, and how many flows they hold (ADR 0096).
//
// The release relay (turn-release.ts, ADR 0058) and the TCP bridge (turn-tcp-bridge.ts, ADR 0054)
// listen on a UDP port of 127.0.0.1, where any user of the machine can send, and each source port
// they serve costs a socket to the TURN server (for the bridge, a TCP connection). Measured before
// this gate: 256 foreign source ports took every flow of the relay, so the member's agent got none,
// and 3,000 made the bridge open 2,452 connections.
//
// So a source gets a flow only once it shows it holds a credential the member was given: an
// authenticated request (RFC 8489 §9.2) whose MESSAGE-INTEGRITY(-SHA256) verifies under it. What a
// TURN client sends first is not signed (it learns the realm and a nonce from the 401 answer): the
// gate answers that 401 itself, with the server's realm and a nonce of its own, and nothing is
// opened. The client's signed request then opens a flow, the server (which never issued that
// nonce) answers 438 Stale Nonce with one of its own, and the client signs again with it (RFC 8489
// §9.2.5): one more round trip, once per flow. The helper learns the realm by asking the server
// once itself (an unsigned Allocate, as any client's first) when it opens, and again while it has
// no answer; until then unsigned requests are dropped, and the client's retransmission meets the
// gate's answer. Everything else from a source without a flow is dropped.
//
// Flows are capped too, and the least recently active one gives way; only holders of the member's
// credential can make them, and those can take the credential's quota at the server anyway. Not
// covered: a holder of the credential that is not the member's own process (ADR 0096 says why a
// secret of the helper's own was not taken).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket as UdpSocket } from 'node:dgram';
import {
  findStunAttribute,
  isStun,
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunAttribute,
  stunMessage,
} from './stun-message.js';

/**
 * Flows a helper keeps for holders of the credential: twice the links a member keeps (MAX_PEERS in
 * mesh.ts, 32), for links that are closing beside the ones that open.
 */
export const MAX_FLOWS = 64;
/** A flow with no allocation (refused, or a server that never answered) and no traffic this long is closed. */
export const IDLE_FLOW_MS = 30_000;
/** Credentials remembered (a REST credential changes with each step: ADR 0058). */
const MAX_PASSWORDS = 16;
/**
 * Datagrams a helper lets wait in one UDP socket's send queue; past it, new ones are dropped, as
 * the network would drop them (TURN over UDP retransmits), rather than queued without bound.
 */
export const MAX_QUEUED_DATAGRAMS = 64;
/** How long a helper waits for the server's answer to its own unsigned Allocate (the realm). */
export const REALM_WAIT_MS = 2000;

/** PASSWORD-ALGORITHM's SHA-256 (RFC 8489 §18.5); anything else is MD5, the default. */
const SHA256_ALGORITHM = 0x0002;

/** What a datagram from a source without a flow may do. */
export type Admission =
  /** Open a flow for it: it signed with a credential the member was given. */
  | 'open'
  /** Send `answer` back to the source; open nothing. */
  | { answer: Buffer }
  /** Drop it; the server's realm is not known yet, so ask the server (realmRequest) first. */
  | 'ask the realm'
  | 'drop';

/** The credentials a helper serves and the server's realm, as the helper has learnt them. */
export class TurnGate {
  /** Long-term passwords by username. */
  readonly #passwords = new Map<string, string>();
  #realm: string | undefined;
  /** The nonce of the 401s the gate answers itself; the server never issued it, so it says 438. */
  readonly #nonce = `papo-${randomBytes(12).toString('hex')}`;

  /** The credential the agent is given for this server. */
  remember(username: string, password: string): void {
    this.#passwords.delete(username);
    this.#passwords.set(username, password);
    if (this.#passwords.size > MAX_PASSWORDS) {
      const oldest = this.#passwords.keys().next().value;
      if (oldest !== undefined) this.#passwords.delete(oldest);
    }
  }

  password(username: string): string | undefined {
    return this.#passwords.get(username);
  }

  /** Has the server told its realm (to realmRequest, or to anyone's request)? */
  get knowsRealm(): boolean {
    return this.#realm !== undefined;
  }

  /**
   * What `datagram`, from a source without a flow, may do. Only STUN requests pass: a signed one
   * that verifies opens a flow, an unsigned one is answered here.
   */
  admit(datagram: Buffer): Admission {
    if (!isStun(datagram) || (datagram.readUInt16BE(0) & 0x0110) !== 0) return 'drop';
    const signed = integrityOf(datagram);
    if (signed !== undefined) return this.#verifies(datagram, signed) ? 'open' : 'drop';
    if (this.#realm === undefined) return 'ask the realm';
    return { answer: this.#challenge(datagram) };
  }

  /** Learns the server's realm from its answers (401 and 438 carry it). */
  heard(message: Buffer): void {
    if (!isStun(message) || (message.readUInt16BE(0) & 0x0110) !== 0x0110) return;
    const realm = stunAttribute(message, STUN_ATTR.realm);
    if (realm !== undefined && realm.length > 0) this.#realm = realm.toString('utf8');
  }

  /** A 401 for `request` (same method and transaction) with the server's realm and the gate's nonce. */
  #challenge(request: Buffer): Buffer {
    const code = Buffer.concat([Buffer.from([0, 0, 4, 1]), Buffer.from('Unauthorized')]);
    return stunMessage(
      request.readUInt16BE(0) | 0x0110,
      [
        stunAttr(STUN_ATTR.errorCode, code),
        stunAttr(STUN_ATTR.realm, Buffer.from(this.#realm ?? '', 'utf8')),
        stunAttr(STUN_ATTR.nonce, Buffer.from(this.#nonce, 'utf8')),
      ],
      undefined,
      request.subarray(8, 20),
    );
  }

  #verifies(message: Buffer, signed: Integrity): boolean {
    const realm = stunAttribute(message, STUN_ATTR.realm)?.toString('utf8');
    if (realm === undefined) return false;
    const username = this.#signer(message, realm);
    const password = username === undefined ? undefined : this.#passwords.get(username);
    if (username === undefined || password === undefined) return false;
    const algorithm = stunAttribute(message, STUN_ATTR.passwordAlgorithm);
    const sha256 =
      algorithm !== undefined && algorithm.length >= 2 && algorithm.readUInt16BE(0) === SHA256_ALGORITHM;
    return verifyIntegrity(message, signed, longTermKey(username, realm, password, sha256));
  }

  /** The remembered username a request names: in USERNAME, or hashed in USERHASH (RFC 8489 §14.4). */
  #signer(message: Buffer, realm: string): string | undefined {
    const named = stunAttribute(message, STUN_ATTR.username);
    if (named !== undefined) return named.toString('utf8');
    const hash = stunAttribute(message, STUN_ATTR.userhash);
    if (hash === undefined) return undefined;
    for (const username of this.#passwords.keys())
      if (createHash('sha256').update(`${username}:${realm}`, 'utf8').digest().equals(hash)) return username;
    return undefined;
  }
}

/** Where a message's first MESSAGE-INTEGRITY or MESSAGE-INTEGRITY-SHA256 is, and which. */
interface Integrity {
  at: number;
  sha256: boolean;
  value: Buffer;
}

function integrityOf(message: Buffer): Integrity | undefined {
  const found = findStunAttribute(
    message,
    (type) => type === STUN_ATTR.integrity || type === STUN_ATTR.integritySha256,
  );
  return found && { at: found.at, sha256: found.type === STUN_ATTR.integritySha256, value: found.value };
}

/**
 * Does the HMAC at `signed` match `key`? It covers the message up to the attribute, with the
 * header's length counting up to the attribute's end (RFC 8489 §14.5, §14.6; SHA-256 may be
 * truncated to 16 bytes or more, in steps of 4).
 */
function verifyIntegrity(message: Buffer, signed: Integrity, key: Buffer): boolean {
  const { at, sha256, value } = signed;
  if (sha256 ? value.length < 16 || value.length > 32 || value.length % 4 !== 0 : value.length !== 20)
    return false;
  const covered = Buffer.from(message.subarray(0, at));
  covered.writeUInt16BE(at + 4 + value.length - 20, 2);
  const mac = createHmac(sha256 ? 'sha256' : 'sha1', key)
    .update(covered)
    .digest();
  return timingSafeEqual(mac.subarray(0, value.length), value);
}

/** The request a helper sends the server to learn its realm: any client's first, unsigned Allocate. */
export function realmRequest(): Buffer {
  return stunMessage(STUN_METHOD.allocate, [stunAttr(STUN_ATTR.transport, Buffer.from([17, 0, 0, 0]))]);
}

/** A flow a helper serves for one source ("address:port"). */
export interface GatedFlow {
  readonly key: string;
  /** The last datagram either way (ms since the epoch). */
  lastSeen: number;
  /** "ip:port" of the allocation's relayed address, once the server granted it. */
  relayed?: string | undefined;
  /** When the server granted it (ms since the epoch). */
  relayedAt?: number | undefined;
}

/**
 * What a sweep does with a flow, as of `now`: 'orphan' when its allocation is older than
 * `minAgeMs` and no live link claims it (a link closed while its Allocate was in flight never
 * names it), 'idle' when it carries no allocation and saw nothing for IDLE_FLOW_MS, else 'keep'.
 */
export function sweepVerdict(
  flow: GatedFlow,
  inUse: ReadonlySet<string>,
  minAgeMs: number,
  now: number,
): 'orphan' | 'idle' | 'keep' {
  const { relayed, relayedAt } = flow;
  if (relayed === undefined) return now - flow.lastSeen >= IDLE_FLOW_MS ? 'idle' : 'keep';
  return relayedAt !== undefined && now - relayedAt >= minAgeMs && !inUse.has(relayed) ? 'orphan' : 'keep';
}

/** What a helper does for its flow table: open, close, answer, ask. */
export interface FlowHooks<F> {
  /** Opens a flow for a source the gate let in. */
  open(key: string, address: string, port: number): F;
  /** Closes a flow pushed out past the cap (an allocation on it is given back). */
  evict(flow: F): void;
  /** Sends the gate's answer back to the source. */
  reply(answer: Buffer, port: number, address: string): void;
  /** Asks the server its realm (the gate does not know it yet). */
  askRealm(): void;
}

/**
 * The flows of a helper behind its gate, least recently active first, at most MAX_FLOWS: past it
 * the least recently active is pushed out and closed.
 */
export class FlowTable<F extends GatedFlow> {
  readonly gate = new TurnGate();
  readonly #flows = new Map<string, F>();
  readonly #hooks: FlowHooks<F>;

  constructor(hooks: FlowHooks<F>) {
    this.#hooks = hooks;
  }

  /**
   * The flow a datagram from `address:port` goes on: the source's own, or one opened now if the
   * gate lets it in (marked active either way). Undefined when it goes nowhere: dropped, or
   * answered by the gate.
   */
  route(datagram: Buffer, address: string, port: number): F | undefined {
    const key = `${address}:${port}`;
    let flow = this.#flows.get(key);
    if (flow === undefined) {
      const admitted = this.gate.admit(datagram);
      if (admitted === 'ask the realm') this.#hooks.askRealm();
      if (typeof admitted === 'object') this.#hooks.reply(admitted.answer, port, address);
      if (admitted !== 'open') return undefined;
      flow = this.#hooks.open(key, address, port);
      this.#add(flow);
    }
    this.seen(flow);
    return flow;
  }

  /** A datagram either way: the flow goes last in the line to be pushed out. */
  seen(flow: F): void {
    flow.lastSeen = Date.now();
    if (!this.holds(flow)) return;
    this.#flows.delete(flow.key);
    this.#flows.set(flow.key, flow);
  }

  /** Is `flow` still the one served for its source? */
  holds(flow: F): boolean {
    return this.#flows.get(flow.key) === flow;
  }

  delete(flow: F): void {
    if (this.holds(flow)) this.#flows.delete(flow.key);
  }

  values(): IterableIterator<F> {
    return this.#flows.values();
  }

  clear(): void {
    this.#flows.clear();
  }

  #add(flow: F): void {
    this.#flows.set(flow.key, flow);
    for (const oldest of this.#flows.values()) {
      if (this.#flows.size <= MAX_FLOWS) return;
      this.#flows.delete(oldest.key);
      this.#hooks.evict(oldest);
    }
  }
}

/**
 * Sends a datagram unless `socket`'s queue is full (MAX_QUEUED_DATAGRAMS): dropped then, as UDP
 * may. To `port`/`address`, or to where the socket is connected.
 */
export function sendOrDrop(socket: UdpSocket, datagram: Buffer, port?: number, address?: string): void {
  try {
    if (socket.getSendQueueCount() >= MAX_QUEUED_DATAGRAMS) return;
    if (port === undefined) socket.send(datagram);
    else socket.send(datagram, port, address);
  } catch {
    // not connected yet, or closed meanwhile: the agent retransmits
  }
}
