// STUN/TURN messages as papo builds and reads them (RFC 8489, RFC 8656): attributes, requests
// signed with MESSAGE-INTEGRITY under the long-term credential, and the attributes and addresses
// of an answer. Shared by what `papo doctor` asks servers (turn-probe.ts) and by the relay that
// gives allocations back (turn-release.ts).
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const STUN_MAGIC = 0x2112a442;

export const STUN_METHOD = {
  binding: 0x0001,
  allocate: 0x0003,
  refresh: 0x0004,
} as const;

export const STUN_ATTR = {
  mappedPlain: 0x0001,
  username: 0x0006,
  integrity: 0x0008,
  errorCode: 0x0009,
  lifetime: 0x000d,
  realm: 0x0014,
  nonce: 0x0015,
  relayed: 0x0016,
  transport: 0x0019,
  integritySha256: 0x001c,
  passwordAlgorithm: 0x001d,
  userhash: 0x001e,
  mapped: 0x0020,
} as const;

/** One attribute: type, length, the value, padded to 4 bytes. */
export function stunAttr(type: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
}

/**
 * A STUN message of `type` (method and class) with a fresh transaction id unless `tid` is given;
 * signed with MESSAGE-INTEGRITY when `key` is given (the header's length then counts it, as the
 * HMAC is computed over it: RFC 8489 §14.5).
 */
export function stunMessage(
  type: number,
  attrs: Buffer[],
  key?: Buffer,
  tid: Buffer = randomBytes(12),
): Buffer {
  const body = Buffer.concat(attrs);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(body.length + (key ? 24 : 0), 2);
  header.writeUInt32BE(STUN_MAGIC, 4);
  tid.copy(header, 8);
  const unsigned = Buffer.concat([header, body]);
  if (!key) return unsigned;
  const mac = createHmac('sha1', key).update(unsigned).digest();
  return Buffer.concat([unsigned, stunAttr(STUN_ATTR.integrity, mac)]);
}

/**
 * The long-term credential's key (RFC 8489 §9.2.2): MD5(username ":" realm ":" password), or
 * SHA-256 of the same when PASSWORD-ALGORITHM says so (§18.5).
 */
export function longTermKey(username: string, realm: string, password: string, sha256 = false): Buffer {
  return createHash(sha256 ? 'sha256' : 'md5')
    .update(`${username}:${realm}:${password}`, 'utf8')
    .digest();
}

/** Does this datagram or frame look like a STUN message (not channel data)? */
export function isStun(buf: Buffer): boolean {
  return buf.length >= 20 && (buf[0] ?? 0) < 0x40 && buf.readUInt32BE(4) === STUN_MAGIC;
}

/** The value of the first attribute of `type`, or undefined. */
export function stunAttribute(message: Buffer, type: number): Buffer | undefined {
  return findStunAttribute(message, (t) => t === type)?.value;
}

/** An attribute of a message: its type, where it starts (its header), and its value. */
export interface FoundAttribute {
  type: number;
  at: number;
  value: Buffer;
}

/** The first attribute whose type passes `wanted`, or undefined (also for a cut-off message). */
export function findStunAttribute(
  message: Buffer,
  wanted: (type: number) => boolean,
): FoundAttribute | undefined {
  const end = Math.min(message.length, 20 + message.readUInt16BE(2));
  let at = 20;
  while (at + 4 <= end) {
    const type = message.readUInt16BE(at);
    const length = message.readUInt16BE(at + 2);
    if (at + 4 + length > end) return undefined;
    if (wanted(type)) return { type, at, value: message.subarray(at + 4, at + 4 + length) };
    at += 4 + ((length + 3) & ~3);
  }
  return undefined;
}

/** "ip:port" of an (XOR-)MAPPED/RELAYED-ADDRESS value, IPv4 or IPv6. */
export function addressOf(value: Buffer, xor: boolean, tid: Buffer): string | undefined {
  if (value.length < 8) return undefined;
  const port = value.readUInt16BE(2) ^ (xor ? STUN_MAGIC >>> 16 : 0);
  if (value[1] === 0x01) {
    const ip = (value.readUInt32BE(4) ^ (xor ? STUN_MAGIC : 0)) >>> 0;
    return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}:${port}`;
  }
  if (value[1] === 0x02 && value.length >= 20) {
    const mask = Buffer.alloc(16);
    if (xor) {
      mask.writeUInt32BE(STUN_MAGIC, 0);
      tid.copy(mask, 4);
    }
    const bytes = Buffer.from(value.subarray(4, 20).map((b, i) => b ^ (mask[i] ?? 0)));
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    return `[${groups.join(':')}]:${port}`;
  }
  return undefined;
}
