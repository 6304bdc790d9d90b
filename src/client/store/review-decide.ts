// A decision of `papo review`, wherever the held messages are owned: applied here when no papo mcp
// holds the profile (this process takes the lock), else left to the running member as a request
// and read back from what it did (ADR 0081). The CLI asks; the store knows which files answer.
import { PapoError } from '../errors.js';
import type { Envelope } from '../wire/messages.js';
import { acquireLock } from './file-lock.js';
import { requestTaken } from './profile-requests.js';
import { openMemberState, readProfileLogTail } from './profile-store.js';
import { applyDecision, decidedIn, type ReviewDecision } from './review-decisions.js';
import { readHeld } from './review-held.js';
import { requestDecision } from './review-requests.js';

export interface ReviewDone {
  /** Applied here (no papo mcp ran), or by the running papo mcp. */
  by: 'here' | 'agent';
  /** The running member did not take the request within the wait: it is left for it. */
  left: boolean;
  approved: Envelope[];
  rejected: Envelope[];
  /** Approved, but the agent's inbox is full: they stay held. */
  full: Envelope[];
}

/**
 * Applies `decision` to the profile in `dir`, whose held messages are `held` (as the person saw
 * them). With a papo mcp running, waits up to `pickupMs` for it to take the request.
 */
export async function decideReview(
  dir: string,
  decision: ReviewDecision,
  held: readonly Envelope[],
  pickupMs: number,
): Promise<ReviewDone> {
  let lock: Awaited<ReturnType<typeof acquireLock>> | undefined;
  try {
    lock = await acquireLock(dir);
  } catch (err) {
    if (!(err instanceof PapoError && err.code === 'profile_locked')) throw err;
  }
  if (lock !== undefined) {
    try {
      const { approved, rejected, full } = await applyDecision(
        await openMemberState(dir),
        decision,
        Date.now(),
      );
      return { by: 'here', left: false, approved, rejected, full };
    } finally {
      await lock.release();
    }
  }
  // papo mcp runs: it owns held/ and the inbox; leave it the decision and see what it did.
  const path = await requestDecision(dir, decision);
  if (!(await requestTaken(path, pickupMs)))
    return { by: 'agent', left: true, approved: [], rejected: [], full: [] };
  // What it did is in the log (a decision per message), and what stays held is still in held/.
  const byId = new Map(held.map((m) => [m.id, m]));
  const decided = decidedIn(await readProfileLogTail(dir, 4 * byId.size + 100));
  const still = new Set(readHeld(dir).map((m) => m.id));
  const wanted = (ids: readonly string[]) => ids.flatMap((id) => byId.get(id) ?? []);
  const approve = decision.approve === 'all' ? [...byId.keys()] : decision.approve;
  return {
    by: 'agent',
    left: false,
    approved: wanted(approve).filter((m) => decided.get(m.id) === 'approved' && !still.has(m.id)),
    full: wanted(approve).filter((m) => still.has(m.id) && !decision.reject.includes(m.id)),
    rejected: wanted(decision.reject).filter((m) => decided.get(m.id) === 'rejected' && !still.has(m.id)),
  };
}
