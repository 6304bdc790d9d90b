// A decision of `papo review` on its way to the running papo mcp: left as a request file
// (review-<ms>-<8 hex>.json, profile-requests.ts) and applied by the member that holds the profile.
import type { LogTarget } from '../log.js';
import { leaveRequest, takeRequests } from './profile-requests.js';
import { type DecisionOutcome, parseDecision, type ReviewDecision } from './review-decisions.js';

/**
 * The decisions `papo review` left for the running member (profile-requests.ts), applied in order.
 * `names`: the folder's listing of this look, when the caller has one (listRequests).
 */
export function takeReviewRequests(
  dir: string,
  member: { decide(decision: ReviewDecision): Promise<DecisionOutcome> },
  log: LogTarget,
  names?: readonly string[],
): Promise<void> {
  return takeRequests(
    dir,
    'review',
    async (request) => {
      const decision = parseDecision(request);
      if (decision === null) return false;
      const { approved, rejected, unknown, full } = await member.decide(decision);
      log(
        `review: ${approved.length} approved, ${rejected.length} rejected, ${full.length} kept (inbox full), ${unknown.length} not held`,
      );
      return true;
    },
    log,
    names,
  );
}

/** Leaves a decision for the running member; returns the request file's path. */
export function requestDecision(dir: string, decision: ReviewDecision): Promise<string> {
  return leaveRequest(dir, 'review', decision);
}
