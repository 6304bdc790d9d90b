// Gives TURN allocations back when a link ends (ADR 0058).
//
// libjuice (inside node-datachannel 0.33.4) never deallocates: neither pc.close() nor
// node-datachannel's cleanup() nor the end of the process sends the Refresh with LIFETIME 0 of
// RFC 8656 §7, so every relayed link attempt left its allocation on the TURN server until its
// lifetime ran out (600 s on coturn), and a server with a per-user quota refused members after a
// dozen links (measured: 2 relay sockets per link, still there after close, cleanup and 3 s).
//
// So papo stands in the path: the ICE agent is handed a local UDP port per TURN-over-UDP server,
// and this relay carries each agent socket's datagrams to the real server on a socket of its own
// ("connected" to the server, so nothing else can reach the agent through it). It reads what it
// needs from the agent's own authenticated requests (USERNAME, REALM, NONCE) and from the server's
// Allocate answer (XOR-RELAYED-ADDRESS). When a link ends, it is told the relayed addresses of the
// link's candidates and sends, for each of those allocations, a Refresh with LIFETIME 0 signed
// with the long-term credential (RFC 8489 §9.2: key = MD5(username ":" realm ":" password)),
// again with a fresh nonce if the server says 438. Nothing else in the messages is changed.
//
// A transport process that is killed (frozen, ADR 0057) cannot do this. So each allocation is also
// told to the member's process as a TurnGrant (the allocation's client port, its server and the
// long-term key), and when the transport dies without closing, the member's process binds the
// same client port again, which makes the same 5-tuple for the server, and sends the Refresh itself
// (releaseGrant below).
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { type Log, type LogTarget, toLog } from '../log.js';
import {
  addressOf,
  isStun,
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunAttribute,
  stunMessage,
} from './stun-message.js';

/** How long a release waits for the server's answer to each Refresh (sent at most twice). */
const RELEASE_WAIT_MS = 500;
/** Agent sockets served at once: a room is a few links; anything past this is not papo's agent. */
const MAX_FLOWS = 256;
/** A flow with no allocation (refused, unreachable server) and no traffic this long is closed. */
const IDLE_FLOW_MS = 30_000;
/** Credentials remembered (a REST credential changes with each step: ADR 0058). */
const MAX_PASSWORDS = 16;

/**
 * One allocation, as the member's process keeps it to give it back if the transport process that
 * made it is killed before it can (the 5-tuple's client port, the server, and the credential).
 */
export interface TurnGrant {
  /** The relayed address, "ip:port". */
  relayed: string;
  host: string;
  port: number;
  /** The local UDP port the allocation was made from (this relay's socket to the server). */
  localPort: number;
  username: string;
  realm: string;
  nonce: string;
  /** The long-term key, hex: MD5(username ":" realm ":" password) (RFC 8489 §9.2). */
  key: string;
}

/** What a relay tells of its allocations: one granted, or one given back or forgotten. */
export type GrantEvent = { granted: TurnGrant } | { gone: string };

interface Flow {
  upstream: UdpSocket;
  agentAddress: string;
  agentPort: number;
  username?: string;
  realm?: string;
  nonce?: string;
  /** "ip:port" of the allocation's relayed address, once the server granted it. */
  relayed?: string | undefined;
  /** When the server granted it (ms since the epoch). */
  relayedAt?: number;
  /** The last datagram either way (ms since the epoch). */
  lastSeen: number;
  /** Datagrams from the agent while the upstream socket connects; undefined once connected. */
  pending?: Buffer[] | undefined;
  /** Set while a release waits for the server: the answer is not for the agent. */
  releasing?: ((message: Buffer) => void) | undefined;
}

export class TurnReleaseRelay {
  readonly host: string;
  readonly port: number;
  readonly localPort: number;
  /** Long-term passwords by username (REST credentials change with each step: ADR 0058). */
  readonly #passwords = new Map<string, string>();
  readonly #agentSide: UdpSocket;
  readonly #flows = new Map<string, Flow>();
  readonly #log: Log;
  readonly #onGrant: (event: GrantEvent) => void;
  #closed = false;

  private constructor(
    host: string,
    port: number,
    socket: UdpSocket,
    log: LogTarget,
    onGrant: (event: GrantEvent) => void,
  ) {
    this.host = host;
    this.port = port;
    this.#agentSide = socket;
    this.#log = toLog(log);
    this.#onGrant = onGrant;
    this.localPort = socket.address().port;
    socket.on('message', (datagram, from) => this.#fromAgent(datagram, from.address, from.port));
  }

  /** A relay on 127.0.0.1 for the TURN server host:port. */
  static async open(
    host: string,
    port: number,
    log: LogTarget = () => {},
    onGrant: (event: GrantEvent) => void = () => {},
  ): Promise<TurnReleaseRelay> {
    return new TurnReleaseRelay(
      host,
      port,
      await bindAgentSocket(toLog(log).child('TURN relay: ')),
      log,
      onGrant,
    );
  }

  /** The credential the agent is given for this server (to sign the Refresh that ends it). */
  remember(username: string, password: string): void {
    this.#passwords.delete(username);
    this.#passwords.set(username, password);
    if (this.#passwords.size > MAX_PASSWORDS) {
      const oldest = this.#passwords.keys().next().value;
      if (oldest !== undefined) this.#passwords.delete(oldest);
    }
  }

  /** Allocations granted through this relay and not given back (for tests and status). */
  allocations(): number {
    let n = 0;
    for (const flow of this.#flows.values()) if (flow.relayed !== undefined) n += 1;
    return n;
  }

  /**
   * Gives back the allocations whose relayed address ("ip:port") is among `relayed`, and forgets
   * their agent sockets. Resolves when the server answered, or after a short wait.
   */
  async release(relayed: Iterable<string>): Promise<void> {
    const wanted = new Set(relayed);
    if (wanted.size === 0) return;
    const done: Promise<void>[] = [];
    for (const [key, flow] of this.#flows) {
      if (flow.relayed === undefined || !wanted.has(flow.relayed)) continue;
      this.#flows.delete(key);
      this.#onGrant({ gone: flow.relayed });
      done.push(this.#deallocate(flow).finally(() => flow.upstream.close()));
    }
    await Promise.all(done);
  }

  /**
   * Gives back allocations older than `minAgeMs` that no live link claims: those of a link closed
   * while its Allocate was in flight, which never got to name them with a candidate.
   */
  sweep(inUse: ReadonlySet<string>, minAgeMs: number): Promise<void> {
    const now = Date.now();
    const orphans: string[] = [];
    for (const [key, flow] of this.#flows) {
      const { relayed, relayedAt } = flow;
      if (
        relayed !== undefined &&
        relayedAt !== undefined &&
        now - relayedAt >= minAgeMs &&
        !inUse.has(relayed)
      )
        orphans.push(relayed);
      else if (relayed === undefined && now - flow.lastSeen >= IDLE_FLOW_MS) {
        // No allocation to give back (refused, or a server that never answered): just forget it.
        this.#flows.delete(key);
        flow.upstream.close();
      }
    }
    return this.release(orphans);
  }

  close(): void {
    this.#closed = true;
    for (const flow of this.#flows.values()) {
      if (flow.relayed !== undefined) this.#onGrant({ gone: flow.relayed });
      flow.upstream.close();
    }
    this.#flows.clear();
    this.#agentSide.close();
  }

  #fromAgent(datagram: Buffer, address: string, port: number): void {
    if (this.#closed) return;
    const key = `${address}:${port}`;
    let flow = this.#flows.get(key);
    if (flow === undefined) {
      if (this.#flows.size >= MAX_FLOWS) return;
      const upstream = createSocket(isIP(this.host) === 6 ? 'udp6' : 'udp4');
      const created: Flow = { upstream, agentAddress: address, agentPort: port, lastSeen: 0, pending: [] };
      flow = created;
      this.#flows.set(key, created);
      upstream.on('error', (err) => this.#log(`TURN relay to ${this.host}:${this.port}: ${err.message}`));
      upstream.on('message', (message) => this.#fromServer(created, message));
      // Connected: the kernel drops datagrams from anyone but the TURN server.
      upstream.connect(this.port, this.host, () => {
        const queued = created.pending ?? [];
        created.pending = undefined;
        for (const d of queued) this.#send(created, d);
      });
    }
    flow.lastSeen = Date.now();
    this.#sniffRequest(flow, datagram);
    if (flow.pending !== undefined) flow.pending.push(datagram);
    else this.#send(flow, datagram);
  }

  #send(flow: Flow, datagram: Buffer): void {
    try {
      flow.upstream.send(datagram);
    } catch {
      // not connected yet, or closed: the agent retransmits
    }
  }

  #fromServer(flow: Flow, message: Buffer): void {
    if (this.#closed) return;
    flow.lastSeen = Date.now();
    if (flow.releasing !== undefined && isStun(message)) {
      flow.releasing(message);
      return;
    }
    const relayed = allocatedAddress(message);
    if (relayed !== undefined) {
      // Allocate success: remember the relayed address this allocation answers for.
      flow.relayed = relayed;
      flow.relayedAt = Date.now();
      this.#tellGrant(flow, relayed);
    }
    try {
      this.#agentSide.send(message, flow.agentPort, flow.agentAddress);
    } catch {
      // closed meanwhile
    }
  }

  /** Keeps what the agent's authenticated Allocate and Refresh requests carry. */
  #sniffRequest(flow: Flow, datagram: Buffer): void {
    if (!isStun(datagram)) return;
    const type = datagram.readUInt16BE(0);
    if (type !== STUN_METHOD.allocate && type !== STUN_METHOD.refresh) return;
    const username = stunAttribute(datagram, STUN_ATTR.username);
    const realm = stunAttribute(datagram, STUN_ATTR.realm);
    const nonce = stunAttribute(datagram, STUN_ATTR.nonce);
    if (username === undefined || realm === undefined || nonce === undefined) return;
    flow.username = username.toString('utf8');
    flow.realm = realm.toString('utf8');
    flow.nonce = nonce.toString('utf8');
  }

  /** Tells the member's process of an allocation it may have to give back itself. */
  #tellGrant(flow: Flow, relayed: string): void {
    const { username, realm, nonce } = flow;
    const password = username === undefined ? undefined : this.#passwords.get(username);
    if (username === undefined || realm === undefined || nonce === undefined || password === undefined)
      return;
    let localPort: number;
    try {
      localPort = flow.upstream.address().port;
    } catch {
      return; // closed meanwhile
    }
    const key = longTermKey(username, realm, password).toString('hex');
    this.#onGrant({
      granted: { relayed, host: this.host, port: this.port, localPort, username, realm, nonce, key },
    });
  }

  async #deallocate(flow: Flow): Promise<void> {
    const { username, realm, nonce } = flow;
    const password = username === undefined ? undefined : this.#passwords.get(username);
    if (username === undefined || realm === undefined || nonce === undefined || password === undefined)
      return;
    await giveBack((message) => this.#request(flow, message), {
      username,
      realm,
      nonce,
      key: longTermKey(username, realm, password),
    });
  }

  #request(flow: Flow, message: Buffer): Promise<Buffer | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), RELEASE_WAIT_MS);
      const finish = (answer: Buffer | undefined) => {
        clearTimeout(timer);
        flow.releasing = undefined;
        resolve(answer);
      };
      flow.releasing = (answer) => {
        if (answer.subarray(8, 20).equals(message.subarray(8, 20))) finish(answer);
      };
      this.#send(flow, message);
    });
  }
}

/**
 * Sends the Refresh with LIFETIME 0 through `request` (which resolves with the server's answer, or
 * undefined after a short wait): once more if no answer came, and once more with the server's
 * nonce after a 438 Stale Nonce. Resolves true when the server said yes.
 */
export async function giveBack(
  request: (message: Buffer) => Promise<Buffer | undefined>,
  credential: { username: string; realm: string; nonce: string; key: Buffer },
): Promise<boolean> {
  const { username, realm, key } = credential;
  let nonce = credential.nonce;
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await request(refreshZero(username, realm, nonce, key));
    // No answer (a busy server, a lost datagram): once more, then the server's expiry decides.
    if (answer === undefined) continue;
    // 438 Stale Nonce: once more with the nonce the server gave.
    const code = stunAttribute(answer, STUN_ATTR.errorCode);
    const fresh = stunAttribute(answer, STUN_ATTR.nonce);
    if (answer.readUInt16BE(0) === 0x0114 && code !== undefined && code[2] === 4 && code[3] === 38 && fresh) {
      nonce = fresh.toString('utf8');
      continue;
    }
    return answer.readUInt16BE(0) === 0x0104;
  }
  return false;
}

/**
 * Gives back, from the member's process, an allocation whose transport process was killed before
 * it could (ADR 0058): binds the allocation's client port again, so that the server sees the same
 * 5-tuple, and sends the Refresh with LIFETIME 0. Resolves with what happened.
 */
export async function releaseGrant(grant: TurnGrant): Promise<'released' | 'port taken' | 'not released'> {
  const socket = createSocket(isIP(grant.host) === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(grant.localPort, () => {
        socket.off('error', reject);
        resolve();
      });
    });
  } catch {
    socket.close();
    return 'port taken';
  }
  socket.on('error', () => {});
  try {
    await new Promise<void>((resolve) => socket.connect(grant.port, grant.host, () => resolve()));
    const request = (message: Buffer) =>
      new Promise<Buffer | undefined>((resolve) => {
        const onMessage = (answer: Buffer) => {
          if (isStun(answer) && answer.subarray(8, 20).equals(message.subarray(8, 20))) finish(answer);
        };
        const finish = (answer: Buffer | undefined) => {
          clearTimeout(timer);
          socket.off('message', onMessage);
          resolve(answer);
        };
        const timer = setTimeout(() => finish(undefined), RELEASE_WAIT_MS);
        socket.on('message', onMessage);
        socket.send(message);
      });
    const { username, realm, nonce } = grant;
    const released = await giveBack(request, { username, realm, nonce, key: Buffer.from(grant.key, 'hex') });
    return released ? 'released' : 'not released';
  } finally {
    socket.close();
  }
}

/** The relayed address ("ip:port") granted by an Allocate success response, else undefined. */
export function allocatedAddress(message: Buffer): string | undefined {
  if (!isStun(message) || message.readUInt16BE(0) !== 0x0103) return undefined;
  const relayed = stunAttribute(message, STUN_ATTR.relayed);
  // IPv4 only: an IPv6 allocation is not given back.
  return relayed?.[1] === 0x01 ? addressOf(relayed, true, message.subarray(8, 20)) : undefined;
}

/**
 * The UDP socket on 127.0.0.1 that the ICE agent is given as its TURN server (this relay, and the
 * TCP/TLS bridge of ADR 0054). Errors after the bind go to `log` (a child named for its owner).
 */
export function bindAgentSocket(log: Log): Promise<UdpSocket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      socket.on('error', (err) => log(err.message));
      resolve(socket);
    });
  });
}

/** A Refresh request with LIFETIME 0, signed with the long-term credential (RFC 8656 §7). */
export function refreshZero(username: string, realm: string, nonce: string, key: Buffer): Buffer {
  return stunMessage(
    STUN_METHOD.refresh,
    [
      stunAttr(STUN_ATTR.lifetime, Buffer.alloc(4)),
      stunAttr(STUN_ATTR.username, Buffer.from(username, 'utf8')),
      stunAttr(STUN_ATTR.realm, Buffer.from(realm, 'utf8')),
      stunAttr(STUN_ATTR.nonce, Buffer.from(nonce, 'utf8')),
    ],
    key,
  );
}

/** The relayed address ("ip:port") of a local ICE candidate line, if it is a relay candidate. */
export function relayedAddressOf(candidate: string): string | undefined {
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ relay ...
  const m = /^(?:a=)?candidate:\S+ \d+ udp \d+ (\S+) (\d+) typ relay\b/i.exec(candidate.trim());
  return m ? `${m[1]}:${m[2]}` : undefined;
}
