// held/ (ADR 0081): the messages the gate holds, one file each (inbox-store.ts), written by the
// member; read here by a process that does not hold the profile's lock. And the unread messages
// of inbox/, which `papo review on` tells the person about (ADR 0095).
import { join } from 'node:path';
import type { Envelope } from '../wire/messages.js';
import { countStored, readStoredMessages } from './inbox-store.js';
import { HELD_DIR, INBOX_DIR } from './profile-files.js';

/** The held messages of a profile, oldest first, for a process that does not hold its lock. */
export function readHeld(profileDir: string): Envelope[] {
  return readStoredMessages(join(profileDir, HELD_DIR));
}

/** How many messages a profile holds for review (papo status, without the lock). */
export function countHeld(profileDir: string): number {
  return countStored(join(profileDir, HELD_DIR));
}

/** The agent's unread messages, oldest first, for a process that does not hold the lock. */
export function readUnread(profileDir: string): Envelope[] {
  return readStoredMessages(join(profileDir, INBOX_DIR));
}
