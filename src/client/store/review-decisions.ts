// The person's decisions on held messages (ADR 0081): approved, a message moves from held/ to the
// inbox (and is pushed to the agent); rejected, it leaves held/ and never reaches the agent. Both
// are written to the log. What is held stays held until decided, review on or off.
import { PapoError } from '../errors.js';
import type { Envelope, LogEntry } from '../wire/messages.js';
import { MESSAGE_ID_PATTERN } from '../wire/names.js';

/** What the person decided: approve some ids (or every held one), reject some, with a reason. */
export interface ReviewDecision {
  approve: string[] | 'all';
  reject: string[];
  /** Told to the sender by `papo review reject --reason` (kept in the log). */
  reason?: string;
}

export interface DecisionOutcome {
  approved: Envelope[];
  rejected: Envelope[];
  /** Ids that are not held (decided already, or never held). */
  unknown: string[];
  /** Approved, but the agent's inbox is full: they stay held (approve again once it reads). */
  full: Envelope[];
}

/** The files a decision changes (the member's state, under its lock). */
export interface HeldState {
  readonly held: readonly Envelope[];
  readonly inbox: readonly Envelope[];
  addToInbox(msg: Envelope): Promise<void>;
  removeFromHeld(ids: Iterable<string>): Promise<void>;
  appendLog(entry: LogEntry): Promise<void>;
}

/** A decision as a request file carries it; null when it is not one. */
export function parseDecision(value: unknown): ReviewDecision | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const ids = (x: unknown) =>
    Array.isArray(x) &&
    x.length <= 10_000 &&
    x.every((id) => typeof id === 'string' && MESSAGE_ID_PATTERN.test(id));
  const approve = v.approve === 'all' ? 'all' : ids(v.approve ?? []) ? ((v.approve ?? []) as string[]) : null;
  if (approve === null || !ids(v.reject ?? [])) return null;
  if (v.reason !== undefined && typeof v.reason !== 'string') return null;
  return {
    approve,
    reject: (v.reject ?? []) as string[],
    ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
  };
}

/**
 * Applies a decision. The order makes a crash at any point safe: an approved message is in the
 * inbox before it leaves held/ (a copy in both is dropped from held/ at the next start:
 * dropDecided), and a rejected one is logged before it leaves held/. Nothing held is released
 * unless approved. Run it under the profile lock (the member's serial queue, or the CLI's lock).
 */
export async function applyDecision(
  state: HeldState,
  decision: ReviewDecision,
  now: number,
): Promise<DecisionOutcome> {
  const outcome: DecisionOutcome = { approved: [], rejected: [], unknown: [], full: [] };
  const byId = new Map(state.held.map((m) => [m.id, m]));
  const rejecting = new Set(decision.reject);
  // An id both approved and rejected is rejected: what is in doubt stays away from the agent.
  const approving = (decision.approve === 'all' ? [...byId.keys()] : decision.approve).filter(
    (id) => !rejecting.has(id),
  );
  for (const id of new Set(approving)) {
    const msg = byId.get(id);
    if (msg === undefined) {
      outcome.unknown.push(id);
      continue;
    }
    if (!state.inbox.some((m) => m.id === id)) {
      try {
        await state.addToInbox(msg);
      } catch (err) {
        if (!(err instanceof PapoError && err.code === 'inbox_full')) throw err;
        outcome.full.push(msg);
        continue;
      }
    }
    await state.appendLog({ ev: 'review', id, decision: 'approved', ts: now });
    await state.removeFromHeld([id]);
    outcome.approved.push(msg);
  }
  for (const id of rejecting) {
    const msg = byId.get(id);
    if (msg === undefined) {
      outcome.unknown.push(id);
      continue;
    }
    await state.appendLog({
      ev: 'review',
      id,
      decision: 'rejected',
      ts: now,
      ...(decision.reason ? { reason: decision.reason } : {}),
    });
    await state.removeFromHeld([id]);
    outcome.rejected.push(msg);
  }
  return outcome;
}

/**
 * At start, what a crash mid-decision left (applyDecision's order): a message both held and unread
 * was being approved (the inbox is written first): its approval is logged if the log missed it,
 * and it leaves held/; a held message the log says was rejected leaves held/. `decided`: the
 * decisions in the log (decidedIn).
 */
export async function dropDecided(
  state: HeldState,
  decided: ReadonlyMap<string, 'approved' | 'rejected'>,
  now: number,
): Promise<void> {
  const unread = new Set(state.inbox.map((m) => m.id));
  const drop: string[] = [];
  for (const m of state.held) {
    if (unread.has(m.id)) {
      if (decided.get(m.id) !== 'approved')
        await state.appendLog({ ev: 'review', id: m.id, decision: 'approved', ts: now });
      drop.push(m.id);
    } else if (decided.get(m.id) === 'rejected') drop.push(m.id);
  }
  if (drop.length > 0) await state.removeFromHeld(drop);
}

/** The ids the log holds a decision for, among its last `entries` (the decisions of this session). */
export function decidedIn(entries: readonly LogEntry[]): Map<string, 'approved' | 'rejected'> {
  const decided = new Map<string, 'approved' | 'rejected'>();
  for (const e of entries) if (e.ev === 'review') decided.set(e.id, e.decision);
  return decided;
}
