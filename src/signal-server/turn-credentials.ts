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
  const expiry = Math.floor(nowMs / 1000) + ttlSeconds;
  const username = `${expiry}:${tag}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

/** The ICE servers for a welcome message: STUN as given, TURN only when a secret is configured. */
export function iceServersFor(turn: TurnConfig, tag: string, nowMs: number = Date.now()): IceServer[] {
  const servers: IceServer[] = [];
  if (turn.stunUrls.length > 0) servers.push({ urls: turn.stunUrls });
  if (turn.secret !== undefined && turn.urls.length > 0) {
    const { username, credential } = mintTurnCredential(turn.secret, tag, turn.ttlSeconds, nowMs);
    servers.push({ urls: turn.urls, username, credential });
  }
  return servers;
}
