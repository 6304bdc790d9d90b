// The smallest TURN client that proves coturn accepts a credential: an Allocate request over UDP
// (RFC 5766 section 6), answered 401 with REALM and NONCE, then repeated with the long-term
// credential mechanism of RFC 5389 section 10.2 (MESSAGE-INTEGRITY = HMAC-SHA1 keyed with
// MD5(username ":" realm ":" password)).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';

const MAGIC_COOKIE = 0x2112a442;
export const ALLOCATE = 0x0003;
export const ALLOCATE_SUCCESS = 0x0103;
export const ALLOCATE_ERROR = 0x0113;
const ATTR = {
  username: 0x0006,
  integrity: 0x0008,
  errorCode: 0x0009,
  realm: 0x0014,
  nonce: 0x0015,
  relayed: 0x0016,
  transport: 0x0019,
} as const;

export interface StunResponse {
  type: number;
  attributes: Map<number, Buffer>;
  /** ERROR-CODE as a number (401, 437...), when present. */
  errorCode: number | undefined;
}

function attribute(type: number, value: Buffer): Buffer {
  const padded = Buffer.alloc(4 + Math.ceil(value.length / 4) * 4);
  padded.writeUInt16BE(type, 0);
  padded.writeUInt16BE(value.length, 2);
  value.copy(padded, 4);
  return padded;
}

function encode(type: number, transaction: Buffer, attrs: Buffer[], key?: Buffer): Buffer {
  const body = Buffer.concat(attrs);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(body.length + (key ? 24 : 0), 2); // the length already counts the MI
  header.writeUInt32BE(MAGIC_COOKIE, 4);
  transaction.copy(header, 8);
  const unsigned = Buffer.concat([header, body]);
  if (!key) return unsigned;
  const mac = createHmac('sha1', key).update(unsigned).digest();
  return Buffer.concat([unsigned, attribute(ATTR.integrity, mac)]);
}

function decode(msg: Buffer): StunResponse {
  const type = msg.readUInt16BE(0);
  const attributes = new Map<number, Buffer>();
  let at = 20;
  const end = 20 + msg.readUInt16BE(2);
  while (at + 4 <= end) {
    const t = msg.readUInt16BE(at);
    const len = msg.readUInt16BE(at + 2);
    if (!attributes.has(t)) attributes.set(t, msg.subarray(at + 4, at + 4 + len));
    at += 4 + Math.ceil(len / 4) * 4;
  }
  const err = attributes.get(ATTR.errorCode);
  const errorCode = err === undefined ? undefined : ((err[2] ?? 0) & 7) * 100 + (err[3] ?? 0);
  return { type, attributes, errorCode };
}

/** Sends one request and waits for the answer with the same transaction id, resending meanwhile. */
async function transact(
  socket: ReturnType<typeof createSocket>,
  port: number,
  build: (tid: Buffer) => Buffer,
): Promise<StunResponse> {
  const tid = randomBytes(12);
  const request = build(tid);
  return new Promise((resolve, reject) => {
    const send = () => socket.send(request, port, '127.0.0.1');
    // Resends also cover the moment coturn is still opening its ports.
    const resend = setInterval(send, 250);
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error('no answer from the TURN server'));
    }, 10_000);
    const onMessage = (msg: Buffer) => {
      if (msg.length < 20 || !msg.subarray(8, 20).equals(tid)) return;
      cleanup();
      resolve(decode(msg));
    };
    const cleanup = () => {
      clearInterval(resend);
      clearTimeout(timer);
      socket.off('message', onMessage);
    };
    socket.on('message', onMessage);
    send();
  });
}

/** Runs Allocate twice (challenge, then authenticated) from a fresh UDP socket; returns the final answer. */
export async function allocate(port: number, username: string, password: string): Promise<StunResponse> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    const udp = attribute(ATTR.transport, Buffer.from([17, 0, 0, 0]));
    const challenge = await transact(socket, port, (tid) => encode(ALLOCATE, tid, [udp]));
    if (challenge.errorCode !== 401) throw new Error(`expected a 401 challenge, got ${challenge.errorCode}`);
    const realm = challenge.attributes.get(ATTR.realm);
    const nonce = challenge.attributes.get(ATTR.nonce);
    if (!realm || !nonce) throw new Error('challenge without REALM or NONCE');
    const key = createHash('md5').update(`${username}:${realm.toString()}:${password}`).digest();
    return await transact(socket, port, (tid) =>
      encode(
        ALLOCATE,
        tid,
        [
          udp,
          attribute(ATTR.username, Buffer.from(username)),
          attribute(ATTR.realm, realm),
          attribute(ATTR.nonce, nonce),
        ],
        key,
      ),
    );
  } finally {
    socket.close();
  }
}

export const RELAYED_ADDRESS = ATTR.relayed;
