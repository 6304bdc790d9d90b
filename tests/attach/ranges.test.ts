// The range set of a file's received bytes (src/client/attach/ranges.ts, ADR 0121): merging, what is
// missing, its bound against a sender that spreads chunks apart, and its record read back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_RANGES } from '../../src/client/attach/constants.js';
import { RangeSet } from '../../src/client/attach/ranges.js';

test('ranges merge when they touch or overlap, and stay apart otherwise', () => {
  const set = new RangeSet();
  set.add(10, 20);
  set.add(30, 40);
  assert.deepEqual(set.ranges, [
    [10, 20],
    [30, 40],
  ]);
  set.add(20, 30);
  assert.deepEqual(set.ranges, [[10, 40]]);
  set.add(0, 5);
  set.add(3, 12);
  assert.deepEqual(set.ranges, [[0, 40]]);
  set.add(50, 60);
  set.add(45, 70);
  assert.deepEqual(set.ranges, [
    [0, 40],
    [45, 70],
  ]);
  assert.equal(set.bytes, 65);
  set.add(5, 5);
  assert.equal(set.ranges.length, 2);
});

test('missing, has and complete answer for a size', () => {
  const set = new RangeSet();
  assert.deepEqual(set.missing(100), [[0, 100]]);
  set.add(10, 20);
  set.add(50, 100);
  assert.deepEqual(set.missing(100), [
    [0, 10],
    [20, 50],
  ]);
  assert.equal(set.has(12, 18), true);
  assert.equal(set.has(15, 25), false);
  assert.equal(set.complete(100), false);
  set.add(0, 10);
  set.add(20, 50);
  assert.equal(set.complete(100), true);
  assert.deepEqual(set.missing(100), []);
  assert.equal(new RangeSet().complete(0), true);
});

test('a sender spreading chunks apart cannot grow the set past its bound', () => {
  const set = new RangeSet(4);
  for (let i = 0; i < 4; i++) assert.equal(set.add(i * 10, i * 10 + 1), true);
  assert.equal(set.canAdd(100, 101), false);
  assert.equal(set.add(100, 101), false);
  assert.equal(set.ranges.length, 4);
  // What touches a range is still taken: the holes can be filled.
  assert.equal(set.canAdd(1, 10), true);
  assert.equal(set.add(1, 10), true);
  assert.equal(set.ranges.length, 3);
  const full = new RangeSet();
  for (let i = 0; i < MAX_RANGES * 2; i++) full.add(i * 2, i * 2 + 1);
  assert.equal(full.ranges.length, MAX_RANGES);
});

test('misuse is a RangeError', () => {
  const set = new RangeSet();
  assert.throws(() => set.add(5, 4), RangeError);
  assert.throws(() => set.add(-1, 4), RangeError);
  assert.throws(() => set.add(0.5, 4), RangeError);
  assert.throws(() => set.add(0, 2 ** 49), RangeError);
  assert.throws(() => new RangeSet(0), RangeError);
});

test('a record reads back; a lying one (unsorted, overlapping, past the size, too many) is null', () => {
  const set = new RangeSet();
  set.add(0, 10);
  set.add(20, 30);
  const back = RangeSet.parse(JSON.parse(JSON.stringify(set)), 30);
  assert.deepEqual(back?.ranges, set.ranges);
  for (const bad of [
    null,
    'x',
    [[0]],
    [[5, 5]],
    [[10, 5]],
    [
      [20, 30],
      [0, 10],
    ],
    [
      [0, 10],
      [5, 20],
    ],
    [[0, 31]],
    [[-1, 3]],
    [['0', 3]],
    Array.from({ length: MAX_RANGES + 1 }, (_, i) => [i * 2, i * 2 + 1]),
  ])
    assert.equal(RangeSet.parse(bad, 30), null, JSON.stringify(bad).slice(0, 80));
  set.clip(25);
  assert.deepEqual(set.ranges, [
    [0, 10],
    [20, 25],
  ]);
});

test('any adds agree with a byte map (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(200), fc.nat(40)), { maxLength: 60 }), (adds) => {
      const set = new RangeSet(8);
      const held = new Uint8Array(260);
      for (const [start, len] of adds) {
        if (set.add(start, start + len)) held.fill(1, start, start + len);
      }
      const rs = set.ranges;
      if (rs.length > 8) return false;
      for (let i = 1; i < rs.length; i++) {
        const [prev, cur] = [rs[i - 1], rs[i]];
        if (prev === undefined || cur === undefined || prev[1] >= cur[0]) return false;
      }
      for (let b = 0; b < 260; b++) if ((held[b] === 1) !== set.has(b, b + 1)) return false;
      const missing = set.missing(260).reduce((n, [a, b]) => n + b - a, 0);
      return missing + set.bytes === 260;
    }),
    { numRuns: 1000 },
  );
});

test('the edges: empty ranges, ranges at or past the size, the largest offset', () => {
  const empty = new RangeSet();
  assert.equal(empty.add(5, 5), true);
  assert.deepEqual(empty.ranges, []);
  assert.equal(empty.has(5, 5), true);
  const one = new RangeSet(1);
  assert.equal(one.add(0, 1), true);
  assert.equal(one.canAdd(9, 9), true);
  assert.equal(one.canAdd(1, 2), true);
  assert.equal(one.canAdd(3, 4), false);
  const set = new RangeSet();
  set.add(0, 10);
  set.add(20, 30);
  assert.deepEqual(set.missing(15), [[10, 15]]);
  assert.deepEqual(set.missing(20), [[10, 20]]);
  set.clip(20);
  assert.deepEqual(set.ranges, [[0, 10]]);
  assert.equal(new RangeSet().add(0, 2 ** 48 - 1), true);
  // A record's touching ranges are merged; pairs of another shape are not ranges.
  assert.deepEqual(
    RangeSet.parse(
      [
        [0, 5],
        [5, 9],
      ],
      10,
    )?.ranges,
    [[0, 9]],
  );
  for (const bad of [[[0, 1, 2]], ['ab'], [[0, 1], 'ab']]) assert.equal(RangeSet.parse(bad, 10), null);
  // More ranges than the bound, all within the size.
  const big = Array.from({ length: MAX_RANGES + 1 }, (_, i) => [i * 2, i * 2 + 1]);
  assert.equal(RangeSet.parse(big, 10_000), null);
  assert.equal(RangeSet.parse(big.slice(0, MAX_RANGES), 10_000)?.ranges.length, MAX_RANGES);
  assert.equal(RangeSet.parse(big.slice(0, 3), 10_000, 2), null);
});
