// The one retry schedule (src/client/net/backoff.ts, ADR 0087): its bounds, its growth, its reset and
// the spread of its jitter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Backoff,
  delayOf,
  JITTER,
  LINK_RETRY,
  type Schedule,
  SIGNAL_REDIAL,
  scheduleOf,
  TRANSPORT_RESTART,
} from '../../src/client/net/backoff.js';

const low = () => 0;
const high = () => 1 - Number.EPSILON;

/** A seeded generator (mulberry32), so a failing spread is reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('the documented schedules: 1, 2, 4, 8, 10, 10... s for the signal, 50 ms first for links', () => {
  const signal = new Backoff(SIGNAL_REDIAL, low);
  assert.deepEqual(
    Array.from({ length: 7 }, () => signal.next()),
    [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000],
  );
  const link = new Backoff(LINK_RETRY, low);
  assert.deepEqual(
    Array.from({ length: 7 }, () => link.next()),
    [50, 1000, 2000, 4000, 8000, 10_000, 10_000],
  );
  // The supervisor's restarts are exact whatever the randomness: no jitter.
  const restart = new Backoff(TRANSPORT_RESTART, high);
  assert.deepEqual(
    Array.from({ length: 7 }, () => restart.next()),
    [0, 1000, 2000, 5000, 10_000, 30_000, 30_000],
  );
});

test('every delay lies in [step, step × (1 + jitter)]: never shorter than the documented step', () => {
  const random = seeded(7);
  for (let attempt = 0; attempt < 12; attempt++) {
    const step = SIGNAL_REDIAL.steps[Math.min(attempt, SIGNAL_REDIAL.steps.length - 1)] ?? 0;
    for (let i = 0; i < 200; i++) {
      const d = delayOf(SIGNAL_REDIAL, attempt, random);
      assert.ok(d >= step && d <= step * (1 + JITTER), `attempt ${attempt}: ${d} ms outside its bounds`);
      assert.equal(d, Math.round(d));
    }
  }
  // The extremes of the randomness reach the bounds; a random() out of [0, 1) is held to them.
  assert.equal(delayOf(SIGNAL_REDIAL, 0, low), 1000);
  assert.equal(delayOf(SIGNAL_REDIAL, 0, high), 1500);
  assert.equal(
    delayOf(SIGNAL_REDIAL, 0, () => 7),
    1500,
  );
  assert.equal(
    delayOf(SIGNAL_REDIAL, 0, () => -1),
    1000,
  );
  assert.equal(delayOf(SIGNAL_REDIAL, -3, low), 1000);
});

test('the delays grow with the attempts until the last step, which repeats', () => {
  const backoff = new Backoff(SIGNAL_REDIAL, () => 0.5);
  const delays = Array.from({ length: 8 }, () => backoff.next());
  for (let i = 1; i < delays.length; i++) assert.ok((delays[i] ?? 0) >= (delays[i - 1] ?? 0), String(delays));
  assert.deepEqual(delays.slice(4), [12_500, 12_500, 12_500, 12_500]);
  assert.equal(backoff.attempts, 8);
});

test('reset starts the schedule over', () => {
  const backoff = new Backoff(SIGNAL_REDIAL, low);
  backoff.next();
  backoff.next();
  backoff.next();
  assert.equal(backoff.attempts, 3);
  backoff.reset();
  assert.equal(backoff.attempts, 0);
  assert.equal(backoff.next(), 1000);
});

test('the jitter spreads a room that redials at once over the window, not onto one millisecond', () => {
  // Thirty-two members lose the same server at the same moment: their first redials.
  const random = seeded(2026);
  const first = Array.from({ length: 32 }, () => new Backoff(SIGNAL_REDIAL, random).next());
  assert.ok(new Set(first).size >= 28, `distinct first delays: ${new Set(first).size} of 32`);
  // They cover the window [1000, 1500] ms: each fifth of it holds some of them.
  const fifths = new Set(first.map((d) => Math.min(4, Math.floor((d - 1000) / 100))));
  assert.equal(fifths.size, 5, `fifths of the window reached: ${[...fifths]}`);
  // Without jitter they would all be the same.
  const exact = { steps: SIGNAL_REDIAL.steps, jitter: 0 };
  assert.equal(new Set(Array.from({ length: 32 }, () => new Backoff(exact, random).next())).size, 1);
});

test("a test's shortened steps keep the schedule's jitter", () => {
  assert.deepEqual(scheduleOf([10, 20], SIGNAL_REDIAL), { steps: [10, 20], jitter: JITTER });
  assert.equal(scheduleOf(undefined, LINK_RETRY), LINK_RETRY);
  assert.deepEqual(scheduleOf([5], TRANSPORT_RESTART), { steps: [5], jitter: 0 });
});

test('a schedule without steps, with a negative step or a negative jitter is refused', () => {
  const bad: Schedule[] = [
    { steps: [], jitter: 0 },
    { steps: [1000, -1], jitter: 0 },
    { steps: [Number.NaN], jitter: 0 },
    { steps: [1000], jitter: -0.1 },
    { steps: [1000], jitter: Number.POSITIVE_INFINITY },
  ];
  for (const schedule of bad)
    assert.throws(() => new Backoff(schedule), RangeError, JSON.stringify(schedule));
  assert.throws(() => scheduleOf([], SIGNAL_REDIAL), RangeError);
});
