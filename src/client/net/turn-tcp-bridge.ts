// TURN over TCP and TLS for an ICE agent that speaks TURN over UDP only.
//
// node-datachannel's ICE backend (libjuice) relays through TURN over UDP and ignores
// `turn:...?transport=tcp` and `turns:` (ADR 0053), so a network that lets no UDP out could not
// link at all. A bridge closes the gap: it listens on a UDP port on 127.0.0.1, which the ICE
// agent is given as a plain UDP TURN server, and carries each datagram over one TCP (or TLS)
// connection per agent socket to the real TURN server (RFC 5766 §2.1: TURN over TCP is the same
// messages on a stream). The server sees an ordinary TCP client; credentials and
// MESSAGE-INTEGRITY are untouched, since they do not cover transport addresses. See ADR 0054.
// Its port on 127.0.0.1 is open to every user of the machine: a stream is opened only for a source
// that signs with the credential the agent was given, at most MAX_FLOWS of them, and a stream
// holds at most MAX_BUFFERED_BYTES unsent (turn-gate.ts, ADR 0096).
import type { Socket as UdpSocket } from 'node:dgram';
import { type Socket, connect as tcpConnect } from 'node:net';
import { rootCertificates, type TLSSocket, connect as tlsConnect } from 'node:tls';
import type { IceServer } from '../../signal-protocol.js';
import { messageOf } from '../errors.js';
import { bareHost } from '../hosts.js';
import { type Log, type LogTarget, toLog } from '../log.js';
import { type IceConfig, parseIceUrl } from './ice-config.js';
import { pinVerdict, tlsOptions } from './tls-pin.js';
import {
  FlowTable,
  type GatedFlow,
  REALM_WAIT_MS,
  realmRequest,
  sendOrDrop,
  sweepVerdict,
} from './turn-gate.js';
import { allocatedAddress, bindAgentSocket, type GrantEvent, TurnReleaseRelay } from './turn-release.js';

export interface TurnBridgeTarget {
  host: string;
  port: number;
  tls: boolean;
  /** Extra trusted CA (PEM) for TLS; the system's store is always trusted. Tests use it. */
  ca?: string;
  /**
   * For TLS: the pin of the server's key (the room's signal address gives it for the signal
   * server's host, ADR 0089). A key with it is trusted, self-signed or not; no byte goes out
   * before the check.
   */
  pin?: string;
}

/** Longest TURN message or ChannelData frame we accept from the server (they fit a datagram). */
const MAX_FRAME = 65_535 + 20;
/**
 * Bytes a stream may hold unsent (while it connects, or the server reads slowly); a datagram that
 * would wait behind more is dropped, as UDP would drop it, rather than buffered without bound.
 */
export const MAX_BUFFERED_BYTES = 256 * 1024;

/** One agent socket's stream to the TURN server (ADR 0054), and the allocation it carries. */
interface Stream extends GatedFlow {
  /** Its allocation (GatedFlow's `relayed`) lives as long as this connection (RFC 6062 §4). */
  socket: Socket;
}

export class TurnTcpBridge {
  readonly target: TurnBridgeTarget;
  readonly localPort: number;
  readonly #udp: UdpSocket;
  /**
   * Agent sockets served, behind the gate that lets in only the credential's holders (ADR 0096),
   * least recently active first; one pushed out past the cap is closed.
   */
  readonly #streams = new FlowTable<Stream>({
    open: (key, address, port) => this.#open(key, address, port),
    evict: (stream) => stream.socket.destroy(),
    reply: (answer, port, address) => sendOrDrop(this.#udp, answer, port, address),
    askRealm: () => this.#learnRealm(),
  });
  /** Who may open a stream, and the credentials given to the agent (ADR 0096). */
  readonly #gate = this.#streams.gate;
  readonly #log: Log;
  /** The stream asking the server its realm, while a question is out. */
  #asking: Socket | undefined;
  #closed = false;

  private constructor(target: TurnBridgeTarget, udp: UdpSocket, log: LogTarget) {
    this.target = target;
    this.#udp = udp;
    this.#log = toLog(log);
    this.localPort = udp.address().port;
    udp.on('message', (datagram, from) => this.#fromAgent(datagram, from.address, from.port));
    this.#learnRealm();
  }

  static async open(target: TurnBridgeTarget, log: LogTarget = () => {}): Promise<TurnTcpBridge> {
    return new TurnTcpBridge(target, await bindAgentSocket(toLog(log).child('TURN bridge: ')), log);
  }

  /** The credential the agent is given for this server: a stream is opened only for a source that signs with it. */
  remember(username: string, password: string): void {
    this.#gate.remember(username, password);
  }

  /** A datagram from the ICE agent: onto its stream to the TURN server (opened on first use). */
  #fromAgent(datagram: Buffer, address: string, port: number): void {
    if (this.#closed || datagram.length < 4) return;
    const stream = this.#streams.route(datagram, address, port);
    if (stream === undefined) return;
    // Over a stream, ChannelData is padded to a multiple of 4 bytes (RFC 5766 §11.5); STUN
    // messages always are.
    const pad = isChannelData(datagram) ? (4 - (datagram.length % 4)) % 4 : 0;
    if (stream.socket.writableLength + datagram.length + pad > MAX_BUFFERED_BYTES) return;
    stream.socket.write(pad === 0 ? datagram : Buffer.concat([datagram, Buffer.alloc(pad)]));
  }

  /** The stream for the agent socket `key`: what the server sends goes back to that socket. */
  #open(key: string, agentAddress: string, agentPort: number): Stream {
    const socket = this.#connect((message) => {
      this.#streams.seen(stream);
      const relayed = allocatedAddress(message);
      if (relayed !== undefined) {
        stream.relayed = relayed;
        stream.relayedAt = Date.now();
      }
      sendOrDrop(this.#udp, message, agentPort, agentAddress);
    });
    const stream: Stream = { key, socket, lastSeen: 0 };
    socket.on('close', () => this.#streams.delete(stream));
    return stream;
  }

  /**
   * Asks the server its realm with an unsigned Allocate of the bridge's own, on a stream of its own
   * (the gate answers the agent's first request with it: turn-gate.ts), unless a question is out.
   */
  #learnRealm(): void {
    if (this.#closed || this.#asking !== undefined || this.#gate.knowsRealm) return;
    const socket = this.#connect(() => {
      if (this.#gate.knowsRealm) socket.destroy();
    });
    // One question at a time, and no sooner than REALM_WAIT_MS after the last, answered or not: a
    // server that refuses connections is not dialled again for every datagram a flood sends.
    const timer = setTimeout(() => {
      socket.destroy();
      if (this.#asking === socket) this.#asking = undefined;
    }, REALM_WAIT_MS);
    timer.unref();
    socket.write(realmRequest());
    this.#asking = socket;
  }

  /** A stream to the server whose every frame is heard by the gate, then handed to `deliver`. */
  #connect(deliver: (message: Buffer) => void): Socket {
    const { host, port, tls, ca, pin } = this.target;
    const stream = tls
      ? tlsConnect({
          ...tlsOptions(host, port, pin !== undefined),
          ...(ca ? { ca: [...rootCertificates, ca] } : {}),
        })
      : tcpConnect({ host, port });
    stream.setNoDelay(true);
    if (tls && pin !== undefined) {
      // The agent's datagrams wait in the stream's buffer until the server's key is checked.
      stream.cork();
      stream.once('secureConnect', () => {
        const refused = pinVerdict(stream as TLSSocket, `${host}:${port}`, pin);
        if (refused === undefined) return stream.uncork();
        this.#log(`TURN bridge to ${host}:${port}: ${refused.message}; closing the stream`);
        stream.destroy();
      });
    }
    let pending: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const frame = nextFrame(pending);
        if (frame === null) break;
        if (frame === 'bad') {
          this.#log(`TURN bridge: unexpected bytes from ${host}:${port}; closing the stream`);
          stream.destroy();
          return;
        }
        const message = pending.subarray(0, frame.length);
        this.#gate.heard(message);
        deliver(message);
        pending = pending.subarray(frame.consumed);
      }
    });
    stream.on('error', (err) => this.#log(`TURN bridge to ${host}:${port}: ${err.message}`));
    return stream;
  }

  /** Bytes waiting in the streams to the server, at most MAX_BUFFERED_BYTES a stream (for tests and status). */
  queued(): number {
    let n = 0;
    for (const stream of this.#streams.values()) n += stream.socket.writableLength;
    return n;
  }

  /**
   * Ends the allocations behind these relayed addresses: over TCP an allocation lives as long as
   * its connection (RFC 6062 §4), so closing the stream gives it back at once (ADR 0058).
   */
  release(relayed: Iterable<string>): void {
    const wanted = new Set(relayed);
    for (const stream of [...this.#streams.values()])
      if (stream.relayed !== undefined && wanted.has(stream.relayed)) stream.socket.destroy();
  }

  /**
   * Ends allocations older than `minAgeMs` that no live link claims (see TurnReleaseRelay.sweep),
   * and streams with no allocation and no traffic for IDLE_FLOW_MS (as of `now`).
   */
  sweep(inUse: ReadonlySet<string>, minAgeMs: number, now: number = Date.now()): void {
    for (const stream of [...this.#streams.values()])
      if (sweepVerdict(stream, inUse, minAgeMs, now) !== 'keep') stream.socket.destroy();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of this.#streams.values()) stream.socket.destroy();
    this.#streams.clear();
    this.#asking?.destroy();
    this.#udp.close();
  }
}

function isChannelData(bytes: Uint8Array): boolean {
  return ((bytes[0] ?? 0) & 0xc0) === 0x40;
}

/**
 * The next complete frame at the start of `buf`: its length, and how much of the stream it used
 * (exported for the fuzz target).
 */
export function nextFrame(buf: Buffer): { length: number; consumed: number } | null | 'bad' {
  if (buf.length < 4) return null;
  const kind = (buf[0] ?? 0) & 0xc0;
  const declared = buf.readUInt16BE(2);
  let length: number;
  let consumed: number;
  if (kind === 0x00) {
    length = 20 + declared; // a STUN message: 20-byte header, attributes already 4-aligned
    consumed = length;
  } else if (kind === 0x40) {
    length = 4 + declared; // ChannelData: 4-byte header, then padding to 4 on a stream
    consumed = (length + 3) & ~3;
  } else {
    return 'bad';
  }
  if (length > MAX_FRAME) return 'bad';
  return buf.length >= consumed ? { length, consumed } : null;
}

/**
 * The bridges of one member, one per TURN-over-TCP/TLS server, and the release relays, one per
 * TURN-over-UDP server (turn-release.ts, ADR 0058), opened when the servers become known
 * (PAPO_ICE_SERVERS at start, the signal server's welcome) and used by every link.
 */
export class TurnBridges {
  readonly #bridges = new Map<string, Promise<TurnTcpBridge | null>>();
  readonly #ready = new Map<string, TurnTcpBridge>();
  readonly #relays = new Map<string, Promise<TurnReleaseRelay | null>>();
  readonly #readyRelays = new Map<string, TurnReleaseRelay>();
  readonly #log: Log;
  readonly #onGrant: (event: GrantEvent) => void;
  readonly #pinFor: (host: string) => string | undefined;
  #closed = false;

  /**
   * `onGrant` hears of each allocation made and given back through the UDP relays; `pinFor` gives
   * the pin for TURN over TLS to a host (the signal server's, from the room's address: tls-pin.ts).
   */
  constructor(
    log: LogTarget = () => {},
    onGrant: (event: GrantEvent) => void = () => {},
    pinFor: (host: string) => string | undefined = () => undefined,
  ) {
    this.#log = toLog(log);
    this.#onGrant = onGrant;
    this.#pinFor = pinFor;
  }

  /** Opens a bridge for every TURN URL over TCP or TLS among `servers`, and a release relay for every one over UDP. */
  async prepare(servers: readonly IceServer[]): Promise<void> {
    const opening: Promise<unknown>[] = [];
    for (const url of urlsOf(servers)) {
      const udp = udpTurnTarget(url);
      if (udp !== null) {
        opening.push(this.#openRelay(udp, url));
        continue;
      }
      const found = bridgeTarget(url);
      if (found === null) continue;
      const pin = found.tls ? this.#pinFor(found.host) : undefined;
      const target = pin !== undefined ? { ...found, pin } : found;
      opening.push(
        this.#openOnce(this.#bridges, this.#ready, targetKey(target), `TURN bridge for ${url}`, () =>
          TurnTcpBridge.open(target, this.#log),
        ),
      );
    }
    await Promise.all(opening);
  }

  #openRelay(target: { host: string; port: number }, url: string): Promise<unknown> {
    return this.#openOnce(
      this.#relays,
      this.#readyRelays,
      `${target.host}:${target.port}`,
      `TURN relay for ${url}`,
      () => TurnReleaseRelay.open(target.host, target.port, this.#log, this.#onGrant),
    );
  }

  /** Opens what `key` names once; keeps it among `ready` when open (closed if we closed meanwhile). */
  #openOnce<T extends { close(): void }>(
    opening: Map<string, Promise<T | null>>,
    ready: Map<string, T>,
    key: string,
    what: string,
    open: () => Promise<T>,
  ): Promise<unknown> {
    const known = opening.get(key);
    if (known !== undefined || this.#closed) return known ?? Promise.resolve();
    const made = open().then(
      (it) => {
        if (this.#closed) {
          it.close();
          return null;
        }
        ready.set(key, it);
        return it;
      },
      (err: unknown) => {
        this.#log(`${what}: ${messageOf(err)}`);
        return null;
      },
    );
    opening.set(key, made);
    return made;
  }

  /** Gives back the allocations behind these relayed addresses ("ip:port"), at every relay and bridge. */
  async release(relayed: readonly string[]): Promise<void> {
    if (relayed.length === 0) return;
    for (const bridge of this.#ready.values()) bridge.release(relayed);
    await Promise.all([...this.#readyRelays.values()].map((r) => r.release(relayed)));
  }

  /**
   * Gives back allocations that no live link claims after `minAgeMs` (a link closed while its
   * Allocate was in flight never names its allocation), and closes flows idle with none (as of `now`).
   */
  async sweep(inUse: ReadonlySet<string>, minAgeMs: number, now: number = Date.now()): Promise<void> {
    for (const bridge of this.#ready.values()) bridge.sweep(inUse, minAgeMs, now);
    await Promise.all([...this.#readyRelays.values()].map((r) => r.sweep(inUse, minAgeMs, now)));
  }

  /**
   * The config with each TURN-over-TCP/TLS URL replaced by its bridge (dropped while not ready),
   * and each TURN-over-UDP URL by its release relay (kept as it is while not ready).
   */
  rewrite(config: IceConfig): IceConfig {
    const servers: IceServer[] = [];
    const stun: string[] = [];
    for (const server of config.servers) {
      const urls: string[] = [];
      for (const url of urlsOf([server])) {
        const udp = udpTurnTarget(url);
        if (udp !== null) {
          const relay = this.#readyRelays.get(`${udp.host}:${udp.port}`);
          if (relay && server.username !== undefined && server.credential !== undefined) {
            relay.remember(server.username, server.credential);
            urls.push(`turn:127.0.0.1:${relay.localPort}?transport=udp`);
            // The agent learns its server-reflexive address from the TURN server itself, which
            // the relay would hide: ask the same server over plain STUN (ADR 0058).
            stun.push(`stun:${udp.host.includes(':') ? `[${udp.host}]` : udp.host}:${udp.port}`);
          } else urls.push(url);
          continue;
        }
        const target = bridgeTarget(url);
        if (target === null) {
          urls.push(url);
          continue;
        }
        const bridge = this.#ready.get(targetKey(target));
        if (!bridge) continue;
        // TURN needs a credential (toNativeIceServers skips a server without one); the bridge
        // opens a stream only for a source that signs with it (ADR 0096).
        if (server.username !== undefined && server.credential !== undefined)
          bridge.remember(server.username, server.credential);
        urls.push(`turn:127.0.0.1:${bridge.localPort}?transport=udp`);
      }
      if (urls.length > 0) servers.push({ ...server, urls });
    }
    const fresh = stun.filter((u, i) => stun.indexOf(u) === i && !urlsOf(servers).includes(u));
    if (fresh.length > 0) servers.push({ urls: fresh });
    return { ...config, servers };
  }

  close(): void {
    this.#closed = true;
    for (const bridge of this.#ready.values()) bridge.close();
    this.#ready.clear();
    for (const relay of this.#readyRelays.values()) relay.close();
    this.#readyRelays.clear();
  }
}

/** host and port of a TURN-over-UDP URL (the ICE agent's own kind), else null. */
function udpTurnTarget(url: string): { host: string; port: number } | null {
  const parsed = parseIceUrl(url);
  if (typeof parsed === 'string' || parsed.scheme !== 'turn' || parsed.transport === 'tcp') return null;
  return { host: parsed.host, port: parsed.port };
}

function urlsOf(servers: readonly IceServer[]): string[] {
  return servers.flatMap((s) => (typeof s.urls === 'string' ? [s.urls] : s.urls));
}

function bridgeTarget(url: string): TurnBridgeTarget | null {
  const parsed = parseIceUrl(url);
  if (typeof parsed === 'string') return null;
  const tls = parsed.scheme === 'turns';
  if (!tls && !(parsed.scheme === 'turn' && parsed.transport === 'tcp')) return null;
  return { host: bareHost(parsed.host), port: parsed.port, tls };
}

function targetKey(t: TurnBridgeTarget): string {
  return `${t.tls ? 'tls' : 'tcp'}:${t.host}:${t.port}`;
}
