// The times a frame carries (ADR 0119), one rule for the wire (frames.ts) and for member.sock's
// says (person/handed-say.ts): Unix milliseconds, a safe integer from 0 on,
//   - within JavaScript's Date range (ECMA-262, "Time Values and Time Range": ±8.64e15 ms):
//     past it `new Date(ts)` is an invalid date whose toISOString() throws, which broke papo web's
//     page on every load (issue 44, W3); and
//   - no further ahead of the receiver's clock than FUTURE_SKEW_MS.
// Nothing bounds the past but the epoch: a message re-sent from its sender's outbox, or caught up
// from another member, carries the time it was written, days ago maybe (ADR 0063). No import, so
// the CLI's handed say loads nothing of the wire's crypto for it.

/** The latest time a Date holds (ECMA-262: 8.64e15 ms after the epoch, 275760-09-13). */
export const LATEST_DATE_MS = 8.64e15;

/**
 * How far ahead of our clock a frame's time may be: ten times the most two linked members' clocks
 * may differ (the signal seal's 60 s window, net/signal-seal.ts), so a message forwarded across
 * members whose clocks each drift that much is still taken. A message refused for it is not lost:
 * its sender's outbox sends it again, and it is taken once our clock is within the skew.
 */
export const FUTURE_SKEW_MS = 10 * 60_000;

/**
 * Whether `value` is a time a frame may carry when it reaches a member whose clock reads `now`.
 * Without `now` (a frame read back from a profile file, written when it was received), only
 * a safe integer from 0 on: refusing what an older papo stored would make the profile unreadable.
 */
export function isFrameTime(value: unknown, now?: number): value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return false;
  return now === undefined || value <= Math.min(LATEST_DATE_MS, now + FUTURE_SKEW_MS);
}
