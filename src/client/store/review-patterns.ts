// The review gate's hold patterns (ADR 0081): what a person writes in `papo review hold`, and how
// papo finds it in a colleague's message.
import { PapoError } from '../errors.js';
import { readerView } from '../wire/reader-view.js';

/** Longest hold pattern, in characters. */
export const MAX_PATTERN_CHARS = 200;

/**
 * A hold pattern as papo matches it: text that must appear in the message, where `*` stands for
 * any text in between (`rm -rf`, `curl * | sh`, `deploy*production`). The pattern and the message
 * are both compared as a reader sees them (ADR 0095): in any letter case, through the reader view
 * of `send`'s credential refusal (reader-view.ts: a zero-width space, a soft hyphen or a word
 * joiner is no character, a fullwidth `ｒｍ` or a Roman numeral `ⅽ` the letters they are drawn
 * as), and without white space: a reader takes `|sh` for `| sh` and `rm   -rf` for `rm -rf`, and
 * a character that looks like no space at all (a word joiner) for none, so white space, present or
 * not, never tells two texts apart.
 *
 * Not a regular expression: the text matched is a colleague's, and JavaScript's backtracking would
 * let them stall papo mcp on a pattern of the person's (the 2026-12-02 review measured seconds to
 * a minute for (a|a)+$ or .*deploy.*prod). Each piece between stars is found with indexOf, the
 * leftmost after the previous one, which is exact for such patterns: the cost is linear in the
 * text.
 */
export interface HoldPattern {
  pieces: string[];
}

/** The pattern as papo uses it; PapoError 'invalid_pattern' when it is empty, only stars, or too long. */
export function compilePattern(pattern: string): HoldPattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new PapoError('invalid_pattern', 'too_long', { detail: { problem: 'too_long' } });
  }
  const pieces = pattern
    .split('*')
    .map((p) => foldText(p))
    .filter((p) => p !== '');
  if (pieces.length === 0) throw new PapoError('invalid_pattern', 'empty', { detail: { problem: 'empty' } });
  return { pieces };
}

/** Whether `text` holds the pattern's pieces in order. */
export function matchesPattern(pattern: HoldPattern, text: string): boolean {
  return matchesAny([pattern], text);
}

/**
 * Whether `text` holds any of `patterns`: the text is folded once (the reader view of a message
 * of up to 64 KiB), however many patterns the person keeps.
 */
export function matchesAny(patterns: readonly HoldPattern[], text: string): boolean {
  if (patterns.length === 0) return false;
  const folded = foldText(text);
  return patterns.some((pattern) => piecesIn(pattern, folded));
}

function piecesIn(pattern: HoldPattern, folded: string): boolean {
  let from = 0;
  for (const piece of pattern.pieces) {
    const at = folded.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

/**
 * How patterns and texts are compared: lower case, as a reader sees it (reader-view.ts), without
 * white space. Lowered before and after the reader view: before, for the lookalikes its table
 * knows in lower case only (Cyrillic "Ԁ" is "ԁ", a "d"); after, for the capitals it made of letters
 * that have no lower case of their own (mathematical bold "𝐑" is "R").
 */
function foldText(text: string): string {
  return readerView(text.toLowerCase()).toLowerCase().replace(/\s/gu, '');
}
