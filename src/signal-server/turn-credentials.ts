// TURN REST credentials in coturn's `use-auth-secret` scheme (draft-uberti-behave-turn-rest):
// username = "<unix expiry>:<tag>", credential = base64(HMAC-SHA1(secret, username)). coturn
// recomputes the HMAC with its `static-auth-secret` and refuses the username once the expiry passes,
// so the signal server hands out relay access that ends by itself and stores nothing.
import { createHmac } from 'node:crypto';
import type { IceServer } from '../signal-protocol.js';
import type { TurnConfig } from './config.js';

export interface TurnCredential {
  username: string;
  credential: string;
}

/** `tag` ends up in coturn's logs (DESIGN.md: the short node id); it is not a secret. */
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
