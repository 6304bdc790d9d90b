// The bytes of a file a receiver holds, as sorted, disjoint, non-adjacent half-open ranges
// [start, end) (docs/decisions/0121-sealed-attachments.md, "attach-want"). A sender decides what to
// send from them, and the receiver's record of them on disk is what lets a transfer resume where it
// stopped. Their count is bounded: chunks sent far apart would otherwise grow the record (and the
// want frame) without limit, so an add that would pass the bound is refused and the receiver asks
// for those bytes again later, in order.
import { MAX_OFFSET, MAX_RANGES } from './constants.js';

/** A half-open range of bytes [start, end). */
export type Range = readonly [start: number, end: number];

export class RangeSet {
  readonly #max: number;
  #ranges: [number, number][] = [];

  constructor(maxRanges = MAX_RANGES) {
    if (!Number.isSafeInteger(maxRanges) || maxRanges < 1)
      throw new RangeError('maxRanges must be at least 1');
    this.#max = maxRanges;
  }

  /** The ranges, sorted and merged. */
  get ranges(): Range[] {
    return this.#ranges.map(([a, b]) => [a, b] as const);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#ranges.reduce((sum, [a, b]) => sum + b - a, 0);
  }

  /**
   * Adds [start, end), merged with the ranges it touches or overlaps. False (nothing changed) when
   * it would make more than the bound of ranges; an empty range is a no-op (true).
   */
  add(start: number, end: number): boolean {
    checkRange(start, end);
    if (start === end) return true;
    const rs = this.#ranges;
    const [i, j] = this.#span(start, end);
    if (i === j && rs.length >= this.#max) return false;
    const merged: [number, number] =
      i === j
        ? [start, end]
        : [
            Math.min(start, (rs[i] as [number, number])[0]),
            Math.max(end, (rs[j - 1] as [number, number])[1]),
          ];
    rs.splice(i, j - i, merged);
    return true;
  }

  /** Whether add(start, end) would be taken (it would not pass the bound of ranges). */
  canAdd(start: number, end: number): boolean {
    checkRange(start, end);
    const [i, j] = this.#span(start, end);
    return start === end || i < j || this.#ranges.length < this.#max;
  }

  /**
   * The ranges [start, end) touches or overlaps, as [i, j): the first that ends at or after `start`
   * and the first that starts after `end`.
   */
  #span(start: number, end: number): [number, number] {
    const rs = this.#ranges;
    let i = 0;
    while (i < rs.length && (rs[i] as [number, number])[1] < start) i++;
    let j = i;
    while (j < rs.length && (rs[j] as [number, number])[0] <= end) j++;
    return [i, j];
  }

  /** Whether every byte of [start, end) is held. */
  has(start: number, end: number): boolean {
    checkRange(start, end);
    if (start === end) return true;
    return this.#ranges.some(([a, b]) => a <= start && end <= b);
  }

  /** Whether [0, size) is held whole. */
  complete(size: number): boolean {
    return this.has(0, size);
  }

  /** The ranges of [0, size) not held, in order. */
  missing(size: number): Range[] {
    checkRange(0, size);
    const out: Range[] = [];
    let at = 0;
    for (const [a, b] of this.#ranges) {
      if (a >= size) break;
      if (a > at) out.push([at, a]);
      at = Math.max(at, b);
    }
    if (at < size) out.push([at, size]);
    return out;
  }

  /** Drops what lies at or past `size` (a record that claims more than a part file holds). */
  clip(size: number): void {
    checkRange(0, size);
    this.#ranges = this.#ranges.filter(([a]) => a < size).map(([a, b]) => [a, Math.min(b, size)]);
  }

  /** The record's JSON: `[[start, end], ...]`. */
  toJSON(): [number, number][] {
    return this.#ranges.map(([a, b]) => [a, b]);
  }

  /**
   * A set from a record or a want frame's ranges (untrusted): a list of at most `maxRanges` pairs of
   * safe integers 0 <= start < end <= `size`, sorted and disjoint (touching ones are merged). Null
   * when it is anything else.
   */
  static parse(value: unknown, size: number, maxRanges = MAX_RANGES): RangeSet | null {
    if (!Array.isArray(value) || value.length > maxRanges) return null;
    const set = new RangeSet(maxRanges);
    let last = -1;
    for (const pair of value) {
      if (!Array.isArray(pair) || pair.length !== 2) return null;
      const [a, b] = pair as unknown[];
      if (!isOffset(a) || !isOffset(b) || a >= b || b > size || a < last) return null;
      last = b;
      if (!set.add(a, b)) return null;
    }
    return set;
  }
}

function isOffset(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_OFFSET;
}

function checkRange(start: number, end: number): void {
  if (!isOffset(start) || !isOffset(end) || start > end)
    throw new RangeError(`not a range of bytes: [${start}, ${end})`);
}
