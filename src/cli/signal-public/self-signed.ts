// A self-signed X.509 v3 certificate (RFC 5280) for `papo signal --public` (ADR 0088): ECDSA P-256
// with SHA-256 (RFC 5758 §3.2), the SubjectAltName the members dial (a DNS name or an IP address,
// RFC 5280 §4.2.1.6), made with node:crypto's key and signature and this small DER encoder (X.690).
// Node 20 can read a certificate (X509Certificate) but not make one, and an openssl binary is not
// on every machine; members check the key's pin, not a chain, so nothing more is needed here.
import { createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** DER tag-length-value (X.690 §8.1: definite lengths, long form past 127). */
function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : undefined;
  if (length === undefined) throw new RangeError('a DER value of 64 KiB or more is not needed here');
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

const seq = (...parts: Uint8Array[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Uint8Array[]) => tlv(0x31, Buffer.concat(parts));
const octets = (content: Uint8Array) => tlv(0x04, content);
const explicit = (n: number, content: Uint8Array) => tlv(0xa0 + n, content);

/** OBJECT IDENTIFIER (X.690 §8.19): the first two arcs in one byte, the rest base 128. */
function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * (arcs[0] ?? 0) + (arcs[1] ?? 0)];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A non-negative INTEGER from big-endian bytes (a leading zero when the top bit is set). */
function unsigned(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const pad = (trimmed[0] ?? 0) & 0x80 ? [0] : [];
  return tlv(0x02, Buffer.concat([Buffer.from(pad), trimmed]));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5). */
function time(at: Date): Buffer {
  const iso = at.toISOString(); // 2026-12-03T08:03:26.000Z
  const digits = `${iso.slice(0, 19).replace(/[-T:]/g, '')}Z`;
  return at.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(digits, 'ascii'));
}

/** An IPv4 or IPv6 address as its 4 or 16 bytes (iPAddress of RFC 5280 §4.2.1.6). */
export function ipBytes(address: string): Buffer {
  const family = isIP(address);
  if (family === 4) return Buffer.from(address.split('.').map(Number));
  if (family !== 6) throw new TypeError(`${address} is not an IP address`);
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
};

export interface SelfSignedOptions {
  /** The P-256 private key that signs and whose public key the certificate carries. */
  key: KeyObject;
  /** What members dial: a DNS name or an IP address. */
  address: string;
  notBefore: Date;
  notAfter: Date;
}

/** The certificate as PEM. */
export function selfSignedCertificate(options: SelfSignedOptions): string {
  const { key, address } = options;
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const algorithm = seq(oid(OID.ecdsaWithSha256));
  // A common name of at most 64 characters (RFC 5280's ub-common-name); the name is in the SAN.
  const name = seq(set(seq(oid(OID.commonName), tlv(0x0c, Buffer.from('papo signal', 'utf8')))));
  const altName =
    isIP(address) !== 0 ? tlv(0x87, ipBytes(address)) : tlv(0x82, Buffer.from(address, 'ascii'));
  const extension = (id: string, critical: boolean, value: Buffer) =>
    seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), octets(value));
  const extensions = seq(
    extension(OID.subjectAltName, false, seq(altName)),
    // Not a CA: the key signs TLS handshakes only (digitalSignature, serverAuth).
    extension(OID.basicConstraints, true, seq()),
    extension(OID.keyUsage, true, tlv(0x03, Buffer.from([0x07, 0x80]))),
    extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
  );
  // A positive 128-bit serial (RFC 5280 §4.1.2.2: at most 20 octets, positive).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x01;
  const tbs = seq(
    explicit(0, unsigned(Buffer.from([2]))),
    unsigned(serial),
    algorithm,
    name,
    seq(time(options.notBefore), time(options.notAfter)),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key, dsaEncoding: 'der' });
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
