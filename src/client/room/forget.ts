// `papo forget NAME`: stop waiting for a member who left the room for good (ADR 0063). Its name
// leaves every queued message's `owed` list and the known members, so no message waits for it;
// and the key that held the name is let go (names.json, ADR 0064), so the next key that shows it
// holds it: the deliberate step after a member made its profile again.
//
// outbox.json and peers.json belong to the papo mcp that holds the profile lock. When none runs,
// the command takes the lock and edits them itself; when one runs, it leaves a request file in
// the profile (forget-<ms>-<8 hex>.json, {"name": ...}: profile-requests.ts) that the running member
// picks up within a second and deletes once applied.

import { PapoError } from '../errors.js';
import type { LogTarget } from '../log.js';
import { acquireLock } from '../store/file-lock.js';
import { forgetInOutbox } from '../store/outbox.js';
import { leaveRequest, requestTaken, takeRequests } from '../store/profile-requests.js';
import { openMemberState, type Peers, readOutbox, readPeers } from '../store/profile-store.js';
import { isMemberName, sameName } from '../wire/names.js';
import { KnownNames } from './member-names.js';

export interface ForgetOutcome {
  /** Queued messages that no longer wait for the member. */
  released: number;
  /** Known identities (node ids) with that name that were forgotten. */
  peers: number;
}

/** Known-member records without `name`; returns how many went. */
export function forgetPeers(peers: Peers, name: string): number {
  let count = 0;
  for (const [node, p] of Object.entries(peers)) {
    if (!sameName(p.name, name)) continue;
    delete peers[node];
    count++;
  }
  return count;
}

/**
 * Applies a forget with no papo mcp running: takes the profile lock (PapoError 'profile_locked'
 * when one runs), edits outbox.json and peers.json, releases it.
 */
export async function forgetWhileStopped(dir: string, name: string): Promise<ForgetOutcome> {
  const lock = await acquireLock(dir);
  try {
    const state = await openMemberState(dir);
    const { outbox, released } = forgetInOutbox(state.outbox, name);
    const peers = forgetPeers(state.peers, name);
    if (released > 0) {
      state.outbox = outbox;
      await state.saveOutbox();
    }
    if (peers > 0) await state.savePeers();
    const names = new KnownNames(state.names);
    if (names.forget(name)) await state.saveNames(names.saved());
    return { released, peers };
  } finally {
    await lock.release();
  }
}

/**
 * Whether the profile knows a member `name`: a known member, or a name a queued message is owed
 * to. Read-only, without the lock. Error: 'profile_corrupt' (peers.json or outbox.json damaged).
 */
export async function knowsMember(dir: string, name: string): Promise<boolean> {
  // One after the other: when both are damaged, the error names peers.json.
  const peers = await readPeers(dir);
  const outbox = await readOutbox(dir);
  return (
    Object.values(peers).some((p) => sameName(p.name, name)) ||
    outbox.some((m) => (m.owed ?? (m.to ? [m.to] : [])).some((n) => sameName(n, name)))
  );
}

/** How a forget went: applied here, or left to the running papo mcp (taken within the wait, or not yet). */
export type ForgetDone = { by: 'here'; released: number } | { by: 'agent'; taken: boolean };

/**
 * Forgets `name` in the profile in `dir`: itself when no papo mcp runs, else by leaving the running
 * one a request and waiting up to `pickupMs` for it to be taken.
 */
export async function forgetMember(dir: string, name: string, pickupMs: number): Promise<ForgetDone> {
  try {
    const { released } = await forgetWhileStopped(dir, name);
    return { by: 'here', released };
  } catch (err) {
    if (!(err instanceof PapoError && err.code === 'profile_locked')) throw err;
  }
  const path = await requestForget(dir, name);
  return { by: 'agent', taken: await requestTaken(path, pickupMs) };
}

/** Leaves a request for the running member; returns the request file's path. */
export async function requestForget(dir: string, name: string): Promise<string> {
  if (!isMemberName(name)) throw new RangeError('invalid member name');
  return leaveRequest(dir, 'forget', { name });
}

/**
 * The pending requests of a profile, oldest first; each file is deleted once `apply` is done.
 * `names`: the folder's listing of this look, when the caller has one (listRequests).
 */
export function takeForgetRequests(
  dir: string,
  apply: (name: string) => Promise<unknown>,
  log: LogTarget = () => {},
  names?: readonly string[],
): Promise<void> {
  return takeRequests(
    dir,
    'forget',
    async (request) => {
      const name = (request as { name?: unknown } | null)?.name;
      if (!isMemberName(name)) return false;
      await apply(name);
      return true;
    },
    log,
    names,
  );
}
