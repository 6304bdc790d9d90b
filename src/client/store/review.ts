// The review gate (ADR 0081): a person who turns review on sees what other members write before
// their agent does. The gate sits after storing and before the agent: a message is stored, logged
// and acknowledged exactly as without it (the sender is not left waiting, delivery rules do not
// change), but a held one goes to held/ instead of inbox/, so it is neither pushed nor returned by
// `wait`/`inbox`, until the person approves it (it moves to the inbox, and is pushed) or rejects it
// (it leaves held/ and never reaches the agent). Both are written to the log.
//
//   review.json   {"on": true, "allow": [{"name": "colega", "agent": "<key>", "human": "<key>"}],
//                  "people": [{"name": "ana", "key": "<key>"}], "hold": ["deploy"]}
//                 written by `papo review` (the person), read by papo mcp before each message
//   held/         held messages, one file each (inbox-store.ts), written by papo mcp
//   review-<ms>-<8 hex>.json   a decision left for the running papo mcp (profile-requests.ts)
//
// The rules, while review is on: a message whose text, as a reader sees it, matches a `hold`
// pattern is held; otherwise one from an allowed member (its agent or its person) or an allowed
// person passes, by name and by the key the room held for that name when the rule was made (ADR
// 0095); everything else is held. With review off nothing new is held, and what is held stays
// held until decided. A review.json that cannot be read holds everything (the gate fails closed).
//
// This file is the gate's face, what the rest of papo imports; each part is a module of its own:
//   review-patterns.ts    hold patterns, matched in linear time (no regular expressions)
//   review-settings.ts    review.json read (failing closed) and written
//   review-gate.ts        the rules (`holds`) and the running member's view of review.json
//   review-decisions.ts   a decision parsed and applied in a crash-safe order, and what a crash left
//   review-requests.ts    a decision of `papo review` handed to the running member
//   review-held.ts        held/ and the unread inbox read without the profile's lock (papo review,
//                         papo status)
// and, imported directly by `papo review` and `papo web`:
//   review-decide.ts      a decision applied by the command itself when no papo mcp runs, else
//                         left to the one that runs
export {
  applyDecision,
  type DecisionOutcome,
  decidedIn,
  dropDecided,
  type HeldState,
  parseDecision,
  type ReviewDecision,
} from './review-decisions.js';
export { holds, ReviewGate } from './review-gate.js';
export { countHeld, readHeld, readUnread } from './review-held.js';
export { compilePattern, matchesPattern } from './review-patterns.js';
export { requestDecision, takeReviewRequests } from './review-requests.js';
export {
  type AllowedMember,
  type AllowedPerson,
  type BrokenReason,
  MAX_ALLOWED_PEOPLE,
  MAX_REVIEW_RULES,
  REVIEW_OFF,
  type ReviewSettings,
  readReviewSettings,
  writeReviewSettings,
} from './review-settings.js';
