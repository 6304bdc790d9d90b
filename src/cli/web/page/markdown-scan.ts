// papo web's Markdown read in one pass (ADR 0119): what markdown.ts turns into DOM nodes, without
// the DOM, so Node's tests and fuzz target read it too. The rules are those the page had as regular
// expressions, and on every input they give what those gave (the fuzz target "papo web Markdown
// (markdown-scan.ts)" runs them as the oracle); but no regular expression with overlapping
// quantifiers runs on room text: the inline one was quadratic (eight 48 KiB bodies of `[[a](`
// made a load take 12 s, issue 44, W4), the heading one cubic in a run of spaces.
//
// `\s` and `.` below are JavaScript's: whitespace is ECMA-262's WhiteSpace and LineTerminator, and a
// line terminator is \n, \r, U+2028 or U+2029. Positions are UTF-16 code units, as the expressions'.

/** A piece of a block's text: plain text, or one inline form and what it holds. */
export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'image'; alt: string; url: string }
  | { t: 'link'; text: string; url: string }
  | { t: 'strong'; text: string }
  | { t: 'em'; text: string };

/** Whether a code unit is `\s`: ECMA-262's WhiteSpace (Zs included) and LineTerminator. */
export function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Whether a code unit ends a line for `.` (which matches anything else). */
function isLineEnd(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

const BACKTICK = 0x60;
const BANG = 0x21;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const NEWLINE = 0x0a;
const HASH = 0x23;
const PIPE = 0x7c;
const COLON = 0x3a;
const DASH = 0x2d;

/**
 * For each position, the first position from it on that ends a run of each kind (`text.length`
 * when none): one backward pass, so that every form is tried in constant time. A run of code, link
 * text, strong or em ends at its closing character or a newline; a url at `)` or whitespace.
 */
function nextStops(text: string) {
  const n = text.length;
  const make = () => new Int32Array(n + 2).fill(n);
  const tick = make();
  const bracket = make();
  const paren = make();
  const star = make();
  const under = make();
  for (let i = n - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    const line = c === NEWLINE;
    tick[i] = line || c === BACKTICK ? i : (tick[i + 1] as number);
    bracket[i] = line || c === CLOSE_BRACKET ? i : (bracket[i + 1] as number);
    paren[i] = c === CLOSE_PAREN || isSpace(c) ? i : (paren[i + 1] as number);
    star[i] = line || c === STAR ? i : (star[i + 1] as number);
    under[i] = line || c === UNDERSCORE ? i : (under[i + 1] as number);
  }
  return { tick, bracket, paren, star, under };
}

/**
 * Inline Markdown of one block's text, in order. At each position the forms are tried in this
 * order, the first that matches taken, and the text goes on after it:
 * `` `code` `` · `![alt](url)` · `[text](url)` · `**strong**` · `__strong__` · `*em*` · `_em_`
 * (code, link text, strong and em on one line; a url without `)` or whitespace; em not starting
 * with whitespace).
 */
export function inlineTokens(text: string): Inline[] {
  const n = text.length;
  const at = (i: number) => (i < n ? text.charCodeAt(i) : -1);
  const { tick, bracket, paren, star, under } = nextStops(text);
  const out: Inline[] = [];
  let plain = 0;
  /** `(url)` from `open` (the `(`): the end after `)`, or -1. */
  const url = (open: number) => {
    if (at(open) !== OPEN_PAREN) return -1;
    const end = paren[open + 1] as number;
    return end > open + 1 && at(end) === CLOSE_PAREN ? end : -1;
  };
  /** The form at `i`: its token and where the text goes on, or undefined. */
  const formAt = (i: number): [Inline, number] | undefined => {
    const c = at(i);
    if (c === BACKTICK) {
      const end = tick[i + 1] as number;
      if (end > i + 1 && at(end) === BACKTICK) return [{ t: 'code', text: text.slice(i + 1, end) }, end + 1];
    } else if (c === BANG) {
      if (at(i + 1) !== OPEN_BRACKET) return undefined;
      const close = bracket[i + 2] as number;
      if (at(close) !== CLOSE_BRACKET) return undefined;
      const end = url(close + 1);
      if (end >= 0)
        return [{ t: 'image', alt: text.slice(i + 2, close), url: text.slice(close + 2, end) }, end + 1];
    } else if (c === OPEN_BRACKET) {
      const close = bracket[i + 1] as number;
      if (close <= i + 1 || at(close) !== CLOSE_BRACKET) return undefined;
      const end = url(close + 1);
      if (end >= 0)
        return [{ t: 'link', text: text.slice(i + 1, close), url: text.slice(close + 2, end) }, end + 1];
    } else if (c === STAR || c === UNDERSCORE) {
      const stops = c === STAR ? star : under;
      if (at(i + 1) === c) {
        const end = stops[i + 2] as number;
        if (end > i + 2 && at(end) === c && at(end + 1) === c)
          return [{ t: 'strong', text: text.slice(i + 2, end) }, end + 2];
      }
      const first = at(i + 1);
      if (first < 0 || first === c || isSpace(first)) return undefined;
      const end = stops[i + 2] as number;
      if (at(end) === c) return [{ t: 'em', text: text.slice(i + 1, end) }, end + 1];
    }
    return undefined;
  };
  let i = 0;
  while (i < n) {
    const form = formAt(i);
    if (form === undefined) {
      i++;
      continue;
    }
    if (i > plain) out.push({ t: 'text', text: text.slice(plain, i) });
    out.push(form[0]);
    i = form[1];
    plain = i;
  }
  if (plain < n) out.push({ t: 'text', text: text.slice(plain) });
  return out;
}

/** How many code units from `from` on are `\s`. */
function spaces(line: string, from: number): number {
  let i = from;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  return i - from;
}

/** Whether `line` from `from` to `to` holds a line terminator (which `.` does not match). */
function hasLineEnd(line: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isLineEnd(line.charCodeAt(i))) return true;
  return false;
}

/**
 * An ATX heading: up to three spaces, 1-6 `#`, whitespace, its text, and optional closing `#`s and
 * whitespace (what `^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$` matched); null when the line is none.
 */
export function headingOf(line: string): { level: number; text: string } | null {
  const lead = spaces(line, 0);
  if (lead > 3) return null;
  let level = 0;
  while (line.charCodeAt(lead + level) === HASH) level++;
  if (level < 1 || level > 6) return null;
  const gap = spaces(line, lead + level);
  if (gap === 0) return null;
  const start = lead + level + gap;
  // The text is as short as it can be: the longest tail of whitespace, `#`s, whitespace is not it.
  let end = line.length;
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--;
  while (end > start && line.charCodeAt(end - 1) === HASH) end--;
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--;
  return hasLineEnd(line, start, end) ? null : { level, text: line.slice(start, end) };
}

/**
 * A list item's text: `-`, `*` or `+` (what `^\s{0,3}[-*+]\s+(.*)$` matched), or, `ordered`, 1-9
 * digits and `.` or `)` (`^\s{0,3}\d{1,9}[.)]\s+(.*)$`), after up to three spaces and before
 * whitespace; null when the line is none.
 */
export function listItemOf(line: string, ordered: boolean): string | null {
  const lead = spaces(line, 0);
  if (lead > 3) return null;
  let i = lead;
  if (ordered) {
    while (i < line.length && line.charCodeAt(i) >= 0x30 && line.charCodeAt(i) <= 0x39) i++;
    if (i === lead || i - lead > 9) return null;
    const mark = line.charCodeAt(i);
    if (mark !== 0x2e && mark !== CLOSE_PAREN) return null;
  } else {
    const mark = line.charCodeAt(i);
    if (mark !== DASH && mark !== STAR && mark !== 0x2b) return null;
  }
  i++;
  const gap = spaces(line, i);
  if (gap === 0) return null;
  const start = i + gap;
  return hasLineEnd(line, start, line.length) ? null : line.slice(start);
}

/**
 * A table's rule under its header: cells of `-` with an optional `:` at either end, between `|`s,
 * the outer ones optional, whitespace anywhere between them (what
 * `^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$` matched).
 */
export function isTableRule(line: string): boolean {
  let cellsSeen = 0;
  /** What came last: nothing, a `|`, or a cell. */
  let last: 'none' | 'pipe' | 'cell' = 'none';
  let i = 0;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === PIPE) {
      // Never two `|` without a cell between them.
      if (last === 'pipe') return false;
      last = 'pipe';
      i++;
      continue;
    }
    // A cell: a `|` before it, unless it is the first.
    if (last === 'cell') return false;
    let j = i;
    if (line.charCodeAt(j) === COLON) j++;
    const dashes = j;
    while (line.charCodeAt(j) === DASH) j++;
    if (j === dashes) return false;
    if (line.charCodeAt(j) === COLON) j++;
    // The cell ends at whitespace, a `|` or the end of the line.
    if (j < line.length && line.charCodeAt(j) !== PIPE && !isSpace(line.charCodeAt(j))) return false;
    cellsSeen++;
    last = 'cell';
    i = j;
  }
  return cellsSeen > 0;
}
