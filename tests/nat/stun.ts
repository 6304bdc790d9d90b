// A small STUN/TURN client for the NAT lab and the TURN attack tests, over UDP or TCP:
// Binding (RFC 8489), Allocate / CreatePermission / Send and Data indications (RFC 8656), with the
// long-term credential mechanism (MESSAGE-INTEGRITY = HMAC-SHA1 keyed with
// MD5(username ":" realm ":" password)). tests/signal-server/turn.test.ts uses it too, to check
// that coturn accepts the credentials the signal server mints.
import { createHmac, randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, isIPv6, type Socket as TcpSocket } from 'node:net';
import {
  longTermKey,
  STUN_MAGIC as MAGIC,
  STUN_ATTR,
  stunAttr,
  stunMessage,
} from '../../src/client/net/stun-message.js';
export const METHOD = {
  binding: 0x001,
  allocate: 0x003,
  refresh: 0x004,
  send: 0x006,
  data: 0x007,
  permission: 0x008,
};
const CLASS = { request: 0x000, indication: 0x010, success: 0x100, error: 0x110 };
export const ATTR = { ...STUN_ATTR, peer: 0x0012, data: 0x0013, family: 0x0017 } as const;

export interface Address {
  address: string;
  port: number;
}

export interface StunMessage {
  type: number;
  tid: Buffer;
  attrs: Map<number, Buffer>;
  errorCode?: number;
}

export class StunError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function encodeMessage(type: number, tid: Buffer, attrs: Buffer[], key?: Buffer): Buffer {
  return stunMessage(type, attrs, key, tid);
}

export function decodeMessage(msg: Buffer): StunMessage | null {
  if (msg.length < 20 || msg.readUInt32BE(4) !== MAGIC) return null;
  const attrs = new Map<number, Buffer>();
  const end = Math.min(msg.length, 20 + msg.readUInt16BE(2));
  let at = 20;
  while (at + 4 <= end) {
    const t = msg.readUInt16BE(at);
    const len = msg.readUInt16BE(at + 2);
    if (!attrs.has(t)) attrs.set(t, msg.subarray(at + 4, at + 4 + len));
    at += 4 + Math.ceil(len / 4) * 4;
  }
  const err = attrs.get(ATTR.errorCode);
  const message: StunMessage = { type: msg.readUInt16BE(0), tid: msg.subarray(8, 20), attrs };
  if (err) message.errorCode = ((err[2] ?? 0) & 7) * 100 + (err[3] ?? 0);
  return message;
}

/** An XOR-*-ADDRESS value, IPv4 or IPv6 (IPv6 needs the message's transaction id). */
export function xorAddress(value: Buffer, tid?: Buffer): Address {
  const port = value.readUInt16BE(2) ^ (MAGIC >>> 16);
  if (value[1] === 0x02) {
    const mask = xorMask(tid);
    const bytes = Buffer.from(value.subarray(4, 20).map((b, i) => b ^ (mask[i] ?? 0)));
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    return { address: groups.join(':'), port };
  }
  const raw = value.readUInt32BE(4) ^ MAGIC;
  return { address: [raw >>> 24, (raw >>> 16) & 255, (raw >>> 8) & 255, raw & 255].join('.'), port };
}

function xorMask(tid: Buffer | undefined): Buffer {
  if (!tid) throw new Error('an IPv6 XOR address needs the transaction id');
  const mask = Buffer.alloc(16);
  mask.writeUInt32BE(MAGIC, 0);
  tid.copy(mask, 4);
  return mask;
}

/** The 16 bytes of an IPv6 address written in any form ("::", "::ffff:1.2.3.4", "2001:db8::1"). */
export function ipv6Bytes(address: string): Buffer {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) throw new Error(`not an IPv6 address: ${address}`);
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => {
    out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  });
  return out;
}

export function encodeXorAddress(a: Address, tid?: Buffer): Buffer {
  if (isIPv6(a.address)) {
    const mask = xorMask(tid);
    const out = Buffer.alloc(20);
    out[1] = 0x02;
    out.writeUInt16BE(a.port ^ (MAGIC >>> 16), 2);
    ipv6Bytes(a.address).forEach((b, i) => {
      out[4 + i] = b ^ (mask[i] ?? 0);
    });
    return out;
  }
  const out = Buffer.alloc(8);
  out[1] = 0x01;
  out.writeUInt16BE(a.port ^ (MAGIC >>> 16), 2);
  const parts = a.address.split('.').map(Number);
  const raw =
    (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
  out.writeUInt32BE((raw ^ MAGIC) >>> 0, 4);
  return out;
}

/** A client bound to one TURN/STUN server over one UDP socket or one TCP connection. */
export class StunClient {
  #send: (buf: Buffer) => void;
  #close: () => void;
  #pending = new Map<string, (m: StunMessage) => void>();
  #onData: ((from: Address, data: Buffer) => void) | null = null;
  #key: Buffer | null = null;
  #username = '';
  #realm = '';
  #nonce = '';
  readonly transport: 'udp' | 'tcp';

  private constructor(transport: 'udp' | 'tcp', send: (buf: Buffer) => void, close: () => void) {
    this.transport = transport;
    this.#send = send;
    this.#close = close;
  }

  static async udp(server: Address, localAddress?: string): Promise<StunClient> {
    const socket: UdpSocket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, localAddress, () => resolve());
    });
    const client = new StunClient(
      'udp',
      (buf) => socket.send(buf, server.port, server.address),
      () => socket.close(),
    );
    socket.on('message', (msg) => client.#receive(msg));
    socket.on('error', () => {});
    return client;
  }

  static async tcp(server: Address): Promise<StunClient> {
    const socket: TcpSocket = connect(server.port, server.address);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    socket.on('error', () => {});
    const client = new StunClient(
      'tcp',
      (buf) => socket.write(buf),
      () => socket.destroy(),
    );
    // STUN over TCP is framed by the header's length field (RFC 8489 section 6.2.2).
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 20) {
        const total = 20 + buffered.readUInt16BE(2);
        if (buffered.length < total) break;
        client.#receive(buffered.subarray(0, total));
        buffered = buffered.subarray(total);
      }
    });
    return client;
  }

  #receive(raw: Buffer): void {
    const msg = decodeMessage(raw);
    if (!msg) return;
    if (msg.type === (METHOD.data | CLASS.indication)) {
      const peer = msg.attrs.get(ATTR.peer);
      const data = msg.attrs.get(ATTR.data);
      if (peer && data && this.#onData) this.#onData(xorAddress(peer, msg.tid), Buffer.from(data));
      return;
    }
    const waiter = this.#pending.get(msg.tid.toString('hex'));
    if (waiter) waiter(msg);
  }

  /** One request, resent every 250 ms over UDP, until the answer with the same transaction id. */
  async request(
    method: number,
    attrs: Buffer[] | ((tid: Buffer) => Buffer[]),
    timeoutMs = 4000,
  ): Promise<StunMessage> {
    const tid = randomBytes(12);
    const key = tid.toString('hex');
    const own = typeof attrs === 'function' ? attrs(tid) : attrs;
    const withAuth = this.#key
      ? [
          ...own,
          stunAttr(ATTR.username, Buffer.from(this.#username)),
          stunAttr(ATTR.realm, Buffer.from(this.#realm)),
          stunAttr(ATTR.nonce, Buffer.from(this.#nonce)),
        ]
      : own;
    const buf = encodeMessage(method | CLASS.request, tid, withAuth, this.#key ?? undefined);
    return new Promise((resolve, reject) => {
      const resend = this.transport === 'udp' ? setInterval(() => this.#send(buf), 250) : undefined;
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no answer to STUN method ${method} over ${this.transport}`));
      }, timeoutMs);
      const done = () => {
        clearInterval(resend);
        clearTimeout(timer);
        this.#pending.delete(key);
      };
      this.#pending.set(key, (m) => {
        done();
        resolve(m);
      });
      this.#send(buf);
    });
  }

  /** Binding request: the address this client is seen from (XOR-MAPPED-ADDRESS). */
  async binding(): Promise<Address> {
    const r = await this.request(METHOD.binding, []);
    const mapped = r.attrs.get(ATTR.mapped);
    if (!mapped) throw new Error('binding answer without XOR-MAPPED-ADDRESS');
    return xorAddress(mapped, r.tid);
  }

  /**
   * Allocate with long-term credentials: the first try is answered 401 with REALM and NONCE, the
   * second carries MESSAGE-INTEGRITY. Returns the relayed and the mapped address. By default a UDP
   * relay of the server's choice of family; `relay: 'tcp'` asks for a TCP relay (RFC 6062,
   * REQUESTED-TRANSPORT 6), `family: 6` for an IPv6 relayed address (RFC 6156).
   */
  async allocate(
    username: string,
    password: string,
    options: { relay?: 'udp' | 'tcp'; family?: 4 | 6 } = {},
  ): Promise<{ relayed: Address; mapped: Address }> {
    const attrs = [stunAttr(ATTR.transport, Buffer.from([options.relay === 'tcp' ? 6 : 17, 0, 0, 0]))];
    if (options.family !== undefined)
      attrs.push(stunAttr(ATTR.family, Buffer.from([options.family === 6 ? 0x02 : 0x01, 0, 0, 0])));
    const first = await this.request(METHOD.allocate, attrs);
    if (first.errorCode !== 401)
      throw new StunError(first.errorCode ?? 0, 'expected 401 to the first Allocate');
    this.#username = username;
    this.#realm = first.attrs.get(ATTR.realm)?.toString() ?? '';
    this.#nonce = first.attrs.get(ATTR.nonce)?.toString() ?? '';
    this.#key = longTermKey(username, this.#realm, password);
    const second = await this.#authenticated(METHOD.allocate, attrs);
    const relayed = second.attrs.get(ATTR.relayed);
    const mapped = second.attrs.get(ATTR.mapped);
    if (!relayed || !mapped) throw new Error('Allocate success without relayed or mapped address');
    return { relayed: xorAddress(relayed, second.tid), mapped: xorAddress(mapped, second.tid) };
  }

  /** CreatePermission for one peer IP (v4 or v6); resolves on success, rejects with StunError (e.g. 403). */
  async createPermission(peer: string): Promise<void> {
    await this.#authenticated(METHOD.permission, (tid) => [
      stunAttr(ATTR.peer, encodeXorAddress({ address: peer, port: 0 }, tid)),
    ]);
  }

  async #authenticated(method: number, attrs: Buffer[] | ((tid: Buffer) => Buffer[])): Promise<StunMessage> {
    let r = await this.request(method, attrs);
    if (r.errorCode === 438) {
      // Stale nonce: take the new one and try once more.
      this.#nonce = r.attrs.get(ATTR.nonce)?.toString() ?? this.#nonce;
      r = await this.request(method, attrs);
    }
    if (r.errorCode !== undefined) {
      const reason = r.attrs.get(ATTR.errorCode)?.subarray(4).toString() ?? '';
      throw new StunError(r.errorCode, `STUN method ${method} refused: ${r.errorCode} ${reason}`);
    }
    return r;
  }

  /** Sends data to a peer through the relay (Send indication; needs a permission). */
  sendTo(peer: Address, data: Buffer): void {
    const tid = randomBytes(12);
    this.#send(
      encodeMessage(METHOD.send | CLASS.indication, tid, [
        stunAttr(ATTR.peer, encodeXorAddress(peer, tid)),
        stunAttr(ATTR.data, data),
      ]),
    );
  }

  onData(listener: (from: Address, data: Buffer) => void): void {
    this.#onData = listener;
  }

  close(): void {
    for (const waiter of this.#pending.keys()) this.#pending.delete(waiter);
    this.#close();
  }
}

/** coturn REST credentials (use-auth-secret): the same formula the signal server mints. */
export function turnRestCredential(
  secret: string,
  name: string,
  ttlSeconds = 3600,
): { username: string; password: string } {
  const username = `${Math.floor(Date.now() / 1000) + ttlSeconds}:${name}`;
  const password = createHmac('sha1', secret).update(username).digest('base64');
  return { username, password };
}
