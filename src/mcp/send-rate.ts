// The anti-loop limit of `send` (docs/mcp.md, "Tools"): more than PAPO_MAX_SENDS_PER_10MIN
// sends (default 40) in a sliding window of 10 minutes are refused with a text telling the agent
// that it is probably looping with another agent and must stop and talk to its user.
import { LIMITS } from './texts.js';

export const SEND_WINDOW_MS = 10 * 60 * 1000;

export interface SendWindow {
  readonly max: number;
  /** Records a send now and returns true, or returns false (recording nothing) if over the limit. */
  tryTake(): boolean;
}

/** PAPO_MAX_SENDS_PER_10MIN: a positive integer; anything else means the default. */
export function parseMaxSends(value: string | undefined): number {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return LIMITS.maxSendsPer10Min;
  const n = Number.parseInt(value, 10);
  return n >= 1 ? n : LIMITS.maxSendsPer10Min;
}

export function createSendWindow(
  max: number,
  now: () => number = Date.now,
  windowMs = SEND_WINDOW_MS,
): SendWindow {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer, got ${max}`);
  const times: number[] = [];
  return {
    max,
    tryTake() {
      const t = now();
      while (times.length > 0 && (times[0] as number) <= t - windowMs) times.shift();
      if (times.length >= max) return false;
      times.push(t);
      return true;
    },
  };
}
