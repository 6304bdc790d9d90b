// Per-socket and per-address limits. They keep one misbehaving client from costing the operator
// more than its share; docs/decisions/0022 gives the defaults and why.

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
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
