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
// Its port on 127.0.0.1 is open to every user of the machine: only a source that signs with the
// credential the agent was given gets a socket of its own, at most MAX_FLOWS of them, and the
// agent's first, unsigned request is answered here (turn-gate.ts, ADR 0096).
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
import {
  FlowTable,
  type GatedFlow,
  REALM_WAIT_MS,
  realmRequest,
  sendOrDrop,
  sweepVerdict,
} from './turn-gate.js';

/** How long a release waits for the server's answer to each Refresh (sent at most twice). */
const RELEASE_WAIT_MS = 500;
/** Datagrams from the agent kept while a flow's socket connects; past it, dropped (UDP). */
const MAX_PENDING = 16;

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

interface Flow extends GatedFlow {
  upstream: UdpSocket;
  agentAddress: string;
  agentPort: number;
  username?: string;
  realm?: string;
  nonce?: string;
  /** Datagrams from the agent while the upstream socket connects; undefined once connected. */
  pending?: Buffer[] | undefined;
  /** Set while a release waits for the server: the answer is not for the agent. */
  releasing?: ((message: Buffer) => void) | undefined;
}

export class TurnReleaseRelay {
  readonly host: string;
  readonly port: number;
  readonly localPort: number;
  readonly #agentSide: UdpSocket;
  /**
   * Agent sockets served, behind the gate that lets in only the credential's holders (ADR 0096),
   * least recently active first; one pushed out past the cap is given back.
   */
  readonly #flows = new FlowTable<Flow>({
    open: (key, address, port) => this.#open(key, address, port),
    evict: (flow) => this.#evicted(flow),
    reply: (answer, port, address) => sendOrDrop(this.#agentSide, answer, port, address),
    askRealm: () => this.#learnRealm(),
  });
  /** Who may open a flow, and the credentials given to the agent (ADR 0096). */
  readonly #gate = this.#flows.gate;
  readonly #log: Log;
  readonly #onGrant: (event: GrantEvent) => void;
  /** Ends the question to the server about its realm, while one is out. */
  #asking: (() => void) | undefined;
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
    this.#learnRealm();
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

  /** The credential the agent is given for this server (to admit it, and to sign the Refresh that ends it). */
  remember(username: string, password: string): void {
    this.#gate.remember(username, password);
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
    for (const flow of [...this.#flows.values()]) {
      if (flow.relayed === undefined || !wanted.has(flow.relayed)) continue;
      this.#flows.delete(flow);
      done.push(this.#giveBack(flow));
    }
    await Promise.all(done);
  }

  /**
   * Gives back allocations older than `minAgeMs` that no live link claims: those of a link closed
   * while its Allocate was in flight, which never got to name them with a candidate. Forgets
   * flows with no allocation and no traffic for IDLE_FLOW_MS (as of `now`).
   */
  sweep(inUse: ReadonlySet<string>, minAgeMs: number, now: number = Date.now()): Promise<void> {
    const orphans: string[] = [];
    for (const flow of [...this.#flows.values()]) {
      const verdict = sweepVerdict(flow, inUse, minAgeMs, now);
      if (verdict === 'orphan' && flow.relayed !== undefined) orphans.push(flow.relayed);
      else if (verdict === 'idle') {
        // No allocation to give back (refused, or a server that never answered): just forget it.
        this.#flows.delete(flow);
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
    this.#asking?.();
    this.#agentSide.close();
  }

  #fromAgent(datagram: Buffer, address: string, port: number): void {
    if (this.#closed) return;
    const flow = this.#flows.route(datagram, address, port);
    if (flow === undefined) return;
    this.#sniffRequest(flow, datagram);
    if (flow.pending === undefined) sendOrDrop(flow.upstream, datagram);
    else if (flow.pending.length < MAX_PENDING) flow.pending.push(datagram);
  }

  /** A flow for the agent socket `key`, on a socket of its own "connected" to the server. */
  #open(key: string, address: string, port: number): Flow {
    const upstream = this.#connect(
      (message) => this.#fromServer(flow, message),
      () => {
        const queued = flow.pending ?? [];
        flow.pending = undefined;
        for (const d of queued) sendOrDrop(upstream, d);
      },
    );
    const flow: Flow = { key, upstream, agentAddress: address, agentPort: port, lastSeen: 0, pending: [] };
    return flow;
  }

  /**
   * A UDP socket "connected" to the server (the kernel drops datagrams from anyone else), that
   * hands what the server sends to `onMessage`, and calls `onConnect` once it can send.
   */
  #connect(onMessage: (message: Buffer) => void, onConnect: () => void): UdpSocket {
    const upstream = createSocket(isIP(this.host) === 6 ? 'udp6' : 'udp4');
    upstream.on('error', (err) => this.#log(`TURN relay to ${this.host}:${this.port}: ${err.message}`));
    upstream.on('message', onMessage);
    upstream.connect(this.port, this.host, onConnect);
    return upstream;
  }

  /**
   * Asks the server its realm with an unsigned Allocate of the relay's own (the gate answers the
   * agent's first request with it: turn-gate.ts), unless a question is out already.
   */
  #learnRealm(): void {
    if (this.#closed || this.#asking !== undefined || this.#gate.knowsRealm) return;
    const request = realmRequest();
    let open = true;
    // Ends the question: at the answer, or after REALM_WAIT_MS (one question at a time, so a flood
    // of unsigned requests does not make one each), or when the relay closes.
    const done = () => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      if (this.#asking === done) this.#asking = undefined;
      socket.close();
    };
    const socket = this.#connect(
      (message) => {
        this.#gate.heard(message);
        if (this.#gate.knowsRealm) done();
      },
      () => sendOrDrop(socket, request),
    );
    const timer = setTimeout(done, REALM_WAIT_MS);
    timer.unref();
    this.#asking = done;
  }

  /** A flow pushed out by newer ones (FlowTable): its allocation, if any, is given back. */
  #evicted(flow: Flow): void {
    if (flow.relayed === undefined) flow.upstream.close();
    else void this.#giveBack(flow);
  }

  /** Tells the allocation gone, sends the Refresh with LIFETIME 0, then closes the flow's socket. */
  #giveBack(flow: Flow): Promise<void> {
    if (flow.relayed !== undefined) this.#onGrant({ gone: flow.relayed });
    return this.#deallocate(flow).finally(() => flow.upstream.close());
  }

  #fromServer(flow: Flow, message: Buffer): void {
    if (this.#closed) return;
    this.#flows.seen(flow);
    this.#gate.heard(message);
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
    sendOrDrop(this.#agentSide, message, flow.agentPort, flow.agentAddress);
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
    const password = username === undefined ? undefined : this.#gate.password(username);
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
    const password = username === undefined ? undefined : this.#gate.password(username);
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
      sendOrDrop(flow.upstream, message);
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
