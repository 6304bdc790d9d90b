// profile.json's one reader: its fields checked once (parseProfileFile), for openProfile and for
// the synchronous peek that `papo mcp` answers `initialize` with before the member is open. This
// module stays light (no lowdb, no network): the peek is loaded on the server's start.
import { join } from 'node:path';
import { isMemberName } from '../wire/names.js';
import { deriveRoomKeys } from '../wire/room-keys.js';
import { readNoFollowSync } from './no-follow.js';
import { PROFILE_FILE } from './profile-files.js';

/** profile.json as stored. */
export interface ProfileFile {
  name: string;
  about?: string;
  secret: string;
  signalUrl?: string;
  createdAt: number;
}

/** What a look at profile.json tells before the profile is opened. */
export interface ProfilePeek {
  /** Member name in the room. */
  name: string;
  /** The room id people compare (room-crypto.ts). */
  roomId: string;
  about?: string;
}

/** profile.json's JSON: the profile's fields, or null when it is not a papo profile. */
export function parseProfileFile(raw: unknown): ProfileFile | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const v = raw as Record<string, unknown>;
  if (!isMemberName(v.name) || typeof v.secret !== 'string' || !/^[0-9a-f]{64}$/.test(v.secret)) {
    return null;
  }
  if (v.about !== undefined && typeof v.about !== 'string') return null;
  if (v.signalUrl !== undefined && typeof v.signalUrl !== 'string') return null;
  const file: ProfileFile = {
    name: v.name,
    secret: v.secret,
    createdAt: typeof v.createdAt === 'number' ? v.createdAt : 0,
  };
  if (typeof v.about === 'string' && v.about !== '') file.about = v.about;
  if (typeof v.signalUrl === 'string' && v.signalUrl !== '') file.signalUrl = v.signalUrl;
  return file;
}

/**
 * The member name, room id and about of the profile in `dir`, read synchronously from one small
 * file; null when there is no papo profile there (missing, unreadable, a link: ADR 0061, or not a
 * profile openProfile would open). The one who then opens the profile reports why.
 */
export function peekProfile(dir: string): ProfilePeek | null {
  let file: ProfileFile | null;
  try {
    const raw = readNoFollowSync(join(dir, PROFILE_FILE));
    if (raw === null) return null;
    file = parseProfileFile(JSON.parse(raw));
  } catch {
    return null;
  }
  if (file === null) return null;
  const { roomId } = deriveRoomKeys(Buffer.from(file.secret, 'hex'));
  return { name: file.name, roomId, ...(file.about === undefined ? {} : { about: file.about }) };
}
