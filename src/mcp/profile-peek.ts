// A cheap look at profile.json for the server instructions, apart from the profile store's reader
// (openProfile in src/client/store/profile-store.ts). The instructions must name the member and the
// room in the initialize response, before the member is open, so this reads one small file and
// imports nothing heavy. Unknown layouts yield null (the instructions then say that
// the profile is not configured, and the tools say what to do).
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { readNoFollowSync } from '../client/store/no-follow.js';
import type { ProfileDescription } from './server.js';

export interface ProfilePeek extends ProfileDescription {
  about?: string;
}

const HEX_ROOM_ID = /^[0-9a-f]{8}$/;

/**
 * Room id = first 4 bytes of BLAKE3 derive_key("papo v1 room id", secret), in hex (docs/protocol.md,
 * "Derivations from the secret").
 */
export function roomIdFromSecret(secret: Uint8Array): string {
  const out = blake3(secret, { context: new TextEncoder().encode('papo v1 room id') });
  return Buffer.from(out.subarray(0, 4)).toString('hex');
}

function decodeSecret(value: unknown): Uint8Array | null {
  if (typeof value !== 'string') return null;
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}

export function peekProfile(profileDir: string): ProfilePeek | null {
  let raw: string | null;
  try {
    // Never through a link (ADR 0061); the tools then report the link when they open the profile.
    raw = readNoFollowSync(join(profileDir, 'profile.json'));
  } catch {
    return null;
  }
  if (raw === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null) return null;
  const p = json as Record<string, unknown>;
  if (typeof p.name !== 'string') return null;
  let roomId: string | null = null;
  for (const key of ['roomId', 'room_id']) {
    const v = p[key];
    if (typeof v === 'string' && HEX_ROOM_ID.test(v)) roomId = v;
  }
  if (roomId === null) {
    const secret = decodeSecret(p.secret ?? p.roomSecret ?? p.room_secret);
    if (secret !== null) roomId = roomIdFromSecret(secret);
  }
  if (roomId === null) return null;
  const about = typeof p.about === 'string' && p.about !== '' ? p.about : undefined;
  return { name: p.name, roomId, ...(about === undefined ? {} : { about }) };
}
