// A person's review decision, for `papo review approve|reject` and papo web alike (ADR 0081): applied
// by the running papo mcp or here (client/store/review-decide.ts), each message's end in the
// person's words, and for a rejection with a reason each sender told why, as the person, in reply
// to their message. The command prints the lines; the page shows them.
import type { ReviewDecision } from '../../client/store/review.js';
import { decideReview, type ReviewDone } from '../../client/store/review-decide.js';
import type { Envelope } from '../../client/wire/messages.js';
import { isMemberName } from '../../client/wire/names.js';
import { rejectionNotice } from '../../mcp/texts.js';
import type { CliContext } from '../context.js';
import type { ReviewTexts } from '../review-texts.js';
import { sayResult } from './say-result.js';

/** How long to wait for a running papo mcp to take a decision (it looks every second). */
const PICKUP_WAIT_MS = 5_000;
/** Longest reason told to a sender (it travels as a message, whose limit is far larger). */
export const MAX_REASON_CHARS = 2_000;

/** Where a decision's lines go: `line`, what became of each message; `note`, telling a sender and its failure. */
export interface DecisionReport {
  line(text: string): void;
  note(text: string): void;
}

/** The reason as it will be told (trimmed; empty is none), or the error a person reads when too long. */
export function checkedReason(rt: ReviewTexts, reason: string | undefined): string | undefined {
  const why = reason?.trim();
  if (why !== undefined && why.length > MAX_REASON_CHARS)
    throw new RangeError(rt.reasonTooLong(MAX_REASON_CHARS));
  return why === '' ? undefined : why;
}

/**
 * Applies `decision` to the held messages `held` (as the person saw them) and reports what became
 * of each; with a reason, tells each sender of a rejected message why. A decision the running papo
 * mcp has not taken in time is left to it, and then no reason is told: it might not be rejected.
 * Returns what became of them.
 */
export async function decideAndTell(
  ctx: CliContext,
  rt: ReviewTexts,
  dir: string,
  decision: ReviewDecision,
  held: readonly Envelope[],
  report: DecisionReport,
): Promise<ReviewDone> {
  const done = await decideReview(dir, decision, held, PICKUP_WAIT_MS);
  const { reason } = decision;
  if (done.left) {
    report.line(rt.leftForAgent);
    if (reason) report.line(rt.reasonNotTold);
    return done;
  }
  for (const m of done.approved) report.line(rt.approved(m.id, m.from, done.by === 'agent'));
  for (const m of done.rejected) report.line(rt.rejected(m.id, m.from));
  for (const m of done.full) report.line(rt.keptFull(m.id));
  if (!reason) return done;
  for (const m of done.rejected) {
    if (!isMemberName(m.from)) continue;
    report.note(rt.telling(m.from));
    const told = await sayResult(ctx, rejectionNotice(m.id, reason), m.from, m.id);
    if (told.ok) for (const line of told.lines) report.line(line);
    else report.note(rt.tellFailed(m.from, told.lines.join('; ')));
  }
  return done;
}
