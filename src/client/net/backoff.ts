// The one retry schedule of the member (ADR 0087; hyperswarm's lib/retry-timer.js is the model):
// a list of delays, the last repeating, each stretched by a random part of itself so that the
// members of a room — and every room on a signal server that restarts — do not redial in the same
// millisecond. The jitter only adds: no delay is shorter than its step, so the documented schedule
// is a floor and the server never sees more dials from a member than it says.

/** Delays in ms for attempts 0, 1, 2...; the last repeats. */
export type Steps = readonly number[];

export interface Schedule {
  steps: Steps;
  /** Each delay is drawn from [step, step × (1 + jitter)]; 0 keeps the steps exact. */
  jitter: number;
}

/** A number in [0, 1); Math.random in production, a fixed function in tests. */
export type Random = () => number;

/** The share of a step added at most: 1 s becomes 1–1.5 s, 10 s becomes 10–15 s. */
export const JITTER = 0.5;

/** The signal client's redials (docs/transport.md "Reconnection"): 1, 2, 4, 8, 10, 10... s. */
export const SIGNAL_REDIAL: Schedule = { steps: [1000, 2000, 4000, 8000, 10_000], jitter: JITTER };

/**
 * The mesh's re-offers and knocks. The first comes at once: on loopback and fast LANs libdatachannel
 * sometimes lets the DTLS handshake run before it stored the remote description, and the
 * fingerprint check then fails ("unknown CA", seen in its debug log in about 1 attempt in 10); a
 * second attempt succeeds. After that, the backoff of ADR 0032: 1, 2, 4, 8, 10 s.
 */
export const LINK_RETRY: Schedule = { steps: [50, 1000, 2000, 4000, 8000, 10_000], jitter: JITTER };

/**
 * The transport supervisor's restarts of its child (ADR 0057). No jitter: the child is this
 * machine's own process and a restart meets no shared server (the child's signal client redials
 * with its own jitter), and the person reading stderr sees the delay as a round number.
 */
export const TRANSPORT_RESTART: Schedule = { steps: [0, 1000, 2000, 5000, 10_000, 30_000], jitter: 0 };

/** Checks a schedule once, at the boundary (RangeError for misuse). */
export function checkSchedule(schedule: Schedule): Schedule {
  const { steps, jitter } = schedule;
  if (steps.length === 0) throw new RangeError('a backoff needs at least one step');
  for (const step of steps) {
    if (!Number.isFinite(step) || step < 0) throw new RangeError(`a backoff step must be ≥ 0 ms: ${step}`);
  }
  if (!Number.isFinite(jitter) || jitter < 0) throw new RangeError(`jitter must be ≥ 0: ${jitter}`);
  return schedule;
}

/** The delay before attempt `attempt` (0 is the first retry): its step, stretched by the jitter. */
export function delayOf(schedule: Schedule, attempt: number, random: Random = Math.random): number {
  const { steps, jitter } = schedule;
  const step = steps[Math.min(Math.max(0, attempt), steps.length - 1)] ?? 0;
  if (jitter === 0 || step === 0) return step;
  // Whole milliseconds: the delay is shown (retryInMs, logs) and a timer rounds anyway.
  return Math.round(step * (1 + jitter * Math.min(Math.max(random(), 0), 1)));
}

/** One retrying thing's position in a schedule: `next()` counts an attempt, `reset()` starts over. */
export class Backoff {
  readonly #schedule: Schedule;
  readonly #random: Random;
  #attempts = 0;

  constructor(schedule: Schedule, random: Random = Math.random) {
    this.#schedule = checkSchedule(schedule);
    this.#random = random;
  }

  /** Attempts counted since the last reset. */
  get attempts(): number {
    return this.#attempts;
  }

  /** The delay before the next attempt, which it counts. */
  next(): number {
    const delay = delayOf(this.#schedule, this.#attempts, this.#random);
    this.#attempts += 1;
    return delay;
  }

  /** Back to the first step (the thing worked, or a fresh start). */
  reset(): void {
    this.#attempts = 0;
  }
}

/** A schedule from a test's shortened steps, or the default. */
export function scheduleOf(steps: Steps | undefined, fallback: Schedule): Schedule {
  return checkSchedule(steps === undefined ? fallback : { steps, jitter: fallback.jitter });
}
