import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSendWindow, parseMaxSends, SEND_WINDOW_MS } from '../../src/mcp/send-rate.js';

test('the window allows max sends in 10 minutes and refuses the next', () => {
  let now = 1_000_000;
  const w = createSendWindow(3, () => now);
  assert.equal(w.tryTake(), true);
  now += 1000;
  assert.equal(w.tryTake(), true);
  assert.equal(w.tryTake(), true);
  assert.equal(w.tryTake(), false);
  // A refused send is not recorded: once the first leaves the window, one more is allowed.
  now = 1_000_000 + SEND_WINDOW_MS;
  assert.equal(w.tryTake(), true);
  assert.equal(w.tryTake(), false);
  now += 1000;
  assert.equal(w.tryTake(), true);
});

test('PAPO_MAX_SENDS_PER_10MIN: positive integers only, else the default 40', () => {
  assert.equal(parseMaxSends(undefined), 40);
  assert.equal(parseMaxSends(''), 40);
  assert.equal(parseMaxSends('5'), 5);
  assert.equal(parseMaxSends(' 100 '), 100);
  assert.equal(parseMaxSends('0'), 40);
  assert.equal(parseMaxSends('-3'), 40);
  assert.equal(parseMaxSends('2.5'), 40);
  assert.equal(parseMaxSends('lots'), 40);
  assert.throws(() => createSendWindow(0), RangeError);
});
