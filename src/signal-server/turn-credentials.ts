// TURN REST credentials in coturn's `use-auth-secret` scheme (draft-uberti-behave-turn-rest):
// username = "<unix expiry>:<tag>", credential = base64(HMAC-SHA1(secret, username)). coturn
// recomputes the HMAC with its `static-auth-secret` and refuses the username once the expiry passes,
// so the signal server hands out relay access that ends by itself and stores nothing.
import { createHmac } from 'node:crypto';
import type { IceServer, WelcomeNote } from '../signal-protocol.js';
import type { TurnConfig } from './config.js';

export interface TurnCredential {
  username: string;
  credential: string;
}

/** `tag` ends up in coturn's logs (ADR 0023: the short node id); it is not a secret. */
export function mintTurnCredential(
  secret: string,
  tag: string,
  ttlSeconds: number,
  nowMs: number = Date.now(),
): TurnCredential {
  return credentialUntil(secret, tag, Math.floor(nowMs / 1000) + ttlSeconds);
}

function credentialUntil(secret: string, tag: string, expiry: number): TurnCredential {
  const username = `${expiry}:${tag}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

/**
 * The expiry of a welcome's credential: now + ttl, rounded up to a step of a quarter of the ttl
 * (at least a minute, at most an hour). A member that connects again within a step (a redial, a
 * restarted transport process) gets the same username, so coturn's `user-quota` counts members,
 * not connections (ADR 0058). The credential stays valid for at least the ttl.
 */
export function stableExpiry(ttlSeconds: number, nowMs: number = Date.now()): number {
  const step = Math.min(3600, Math.max(60, Math.floor(ttlSeconds / 4)));
  return Math.ceil((Math.floor(nowMs / 1000) + ttlSeconds) / step) * step;
}

/** The ICE servers for a welcome message: STUN as given, TURN only when a secret is configured. */
export function iceServersFor(turn: TurnConfig, tag: string, nowMs: number = Date.now()): IceServer[] {
  const servers: IceServer[] = [];
  if (turn.stunUrls.length > 0) servers.push({ urls: turn.stunUrls });
  if (turn.secret !== undefined && turn.urls.length > 0) {
    const { username, credential } = credentialUntil(turn.secret, tag, stableExpiry(turn.ttlSeconds, nowMs));
    servers.push({ urls: turn.urls, username, credential });
  }
  return servers;
}

export interface WelcomeIce {
  iceServers: IceServer[];
  notes: WelcomeNote[];
}

/**
 * Who gets TURN credentials (ADR 0074, ADR 0114). Anyone who reaches /v1/ws with the token (or
 * anyone at all, without one) would get relay access, and one token is every room's of a server
 * (`papo signal --public`): so a client address (an IPv4 address, an IPv6 prefix: the connection
 * limits' key) is given credentials for at most `perAddress` TURN identities per `windowMs`, token
 * or not. An identity is the member's `?peer=` hint bound by the server to the client's address
 * (`identityTag`): a member that reconnects (same hint, same address) within the window is given
 * its credential again without counting twice, so a redialling member is never limited by itself;
 * a client that names another member's id gets a username of its own address, never that
 * member's (coturn's `user-quota` counts per username).
 */
export class TurnIssuer {
  /** address → tag → when it was last given a credential (ms); Map order = oldest first. */
  readonly #given = new Map<string, Map<string, number>>();
  #lastSweep = 0;
  issued = 0;
  limited = 0;

  constructor(
    private readonly turn: TurnConfig,
    /** Addresses tracked at most (the oldest forgotten first): bounds memory under many /64s. */
    private readonly maxAddresses = 100_000,
  ) {}

  get enabled(): boolean {
    return this.turn.secret !== undefined && this.turn.urls.length > 0;
  }

  /**
   * The TURN identity of a connection from `address` whose member names itself `hint` (its short
   * id, ADR 0023, kept readable in coturn's logs): `<hint>.<6 hex of an HMAC of the address under
   * the TURN secret>`. Only the server can make the suffix, so the same hint from another address
   * is another identity.
   */
  identityTag(address: string, hint: string): string {
    if (this.turn.secret === undefined) return hint;
    const bound = createHmac('sha256', this.turn.secret)
      .update(`papo turn identity\0${address}`)
      .digest('hex')
      .slice(0, 6);
    return `${hint}.${bound}`;
  }

  /** The ICE servers for the welcome of a connection from `address` whose member names itself `hint`. */
  forWelcome(address: string, hint: string, nowMs: number = Date.now()): WelcomeIce {
    const tag = this.identityTag(address, hint);
    if (!this.enabled) return { iceServers: iceServersFor(this.turn, tag, nowMs), notes: [] };
    if (this.turn.perAddress === 0 || this.#allow(address, tag, nowMs)) {
      this.issued++;
      return { iceServers: iceServersFor(this.turn, tag, nowMs), notes: [] };
    }
    this.limited++;
    const stunOnly: IceServer[] = this.turn.stunUrls.length > 0 ? [{ urls: this.turn.stunUrls }] : [];
    return { iceServers: stunOnly, notes: ['turn_limited'] };
  }

  #allow(address: string, tag: string, now: number): boolean {
    const cutoff = now - this.turn.windowMs;
    if (now - this.#lastSweep > this.turn.windowMs) this.#sweep(cutoff, now);
    let tags = this.#given.get(address);
    if (tags === undefined) {
      tags = new Map();
    } else {
      for (const [t, at] of tags) {
        if (at > cutoff) break; // insertion order is time order: the rest are newer
        tags.delete(t);
      }
      this.#given.delete(address); // re-inserted below: most recently used last
    }
    let allowed = true;
    if (tags.has(tag)) tags.delete(tag);
    else if (tags.size >= this.turn.perAddress) allowed = false;
    if (allowed) tags.set(tag, now);
    if (tags.size > 0) this.#given.set(address, tags);
    while (this.#given.size > this.maxAddresses) {
      const oldest = this.#given.keys().next().value;
      if (oldest === undefined) break;
      this.#given.delete(oldest);
    }
    return allowed;
  }

  #sweep(cutoff: number, now: number): void {
    this.#lastSweep = now;
    for (const [address, tags] of this.#given) {
      let newest = 0;
      for (const at of tags.values()) newest = at;
      if (newest <= cutoff) this.#given.delete(address);
    }
  }

  /** Addresses tracked now (tests, metrics). */
  get trackedAddresses(): number {
    return this.#given.size;
  }
}
