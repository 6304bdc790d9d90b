// Per-socket and per-address limits. They keep one misbehaving client from costing the operator
// more than its share; docs/decisions/0022 gives the defaults and why, ADR 0060 the IPv6 prefix.
import { isIPv4, isIPv6 } from 'node:net';

/**
 * A token bucket: `burst` tokens, refilled at `perSecond`. Trickled ICE candidates come in bursts
 * (an offer and a dozen candidates per neighbour), so the burst is generous and the rate is not.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number = performance.now(),
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /** Takes one token; false when the bucket is empty (the message must be refused). */
  take(now: number = performance.now()): boolean {
    const elapsed = now - this.last;
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.perSecond) / 1000);
      this.last = now;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Open connections per client address. */
export class AddressCounter {
  private readonly counts = new Map<string, number>();

  /** Counts one more connection from `address` unless that would pass `max`. */
  acquire(address: string, max: number): boolean {
    const n = this.counts.get(address) ?? 0;
    if (n >= max) return false;
    this.counts.set(address, n + 1);
    return true;
  }

  release(address: string): void {
    const n = this.counts.get(address) ?? 0;
    if (n <= 1) this.counts.delete(address);
    else this.counts.set(address, n - 1);
  }

  get size(): number {
    return this.counts.size;
  }
}

/**
 * The client's address. X-Forwarded-For is only believed when the operator says how many proxies
 * append to it (`PAPO_SIGNAL_TRUST_PROXY`): the entry that many places from the right is the one
 * the outermost trusted proxy saw; anything left of it is whatever the client chose to send.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustProxyHops: number,
): string {
  const direct = normalize(socketAddress ?? 'unknown');
  if (trustProxyHops <= 0 || forwardedFor === undefined) return direct;
  const hops = forwardedFor
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const chosen = hops[hops.length - trustProxyHops] ?? hops[0];
  return chosen === undefined ? direct : normalize(chosen);
}

/** `::ffff:1.2.3.4` and `1.2.3.4` are the same client. */
function normalize(address: string): string {
  // Only the dotted form: `::ffff:c000:207` is the same client too, but addressKey reads that one.
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/**
 * The key a client is counted under against the per-address cap: an IPv4 address as it is; an
 * IPv6 address cut to its first `ipv6Prefix` bits, because one subscriber is usually given a whole
 * /64 (RFC 6177) and can use a new address for every socket; an IPv4-mapped IPv6 address
 * (`::ffff:a.b.c.d`, RFC 4291 section 2.5.5.2) as its IPv4 address. Anything else as it is.
 */
export function addressKey(address: string, ipv6Prefix: number): string {
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  const bits = Math.max(0, Math.min(128, ipv6Prefix));
  const masked = groups.map((g, i) => {
    const keep = Math.max(0, Math.min(16, bits - 16 * i));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${masked.map((g) => g.toString(16)).join(':')}/${bits}`;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, embedded IPv4 allowed), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  const zoneless = text.replace(/%.*$/, '');
  if (!isIPv6(zoneless)) return undefined;
  // A trailing dotted IPv4 (`::ffff:192.0.2.7`) is the last two groups.
  const address = zoneless.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((g) => g.toString(16)).join(':'),
  );
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const [head = '', tail] = address.split('::');
  const front = parse(head);
  if (tail === undefined) return front.length === 8 ? front : undefined;
  const back = parse(tail);
  const zeros = 8 - front.length - back.length;
  return zeros < 0 ? undefined : [...front, ...new Array<number>(zeros).fill(0), ...back];
}
