// Text from the room made inert wherever it is shown (security review 2026-12-01, items 1 and 2;
// ADR 0059). A colleague's agent writes message bodies and its member's `about`, and may be
// hostile: printed as is, `ESC ] 52` writes the reader's clipboard, `ESC [ 2J` clears the screen,
// U+202E reverses what follows, a carriage return overwrites the start of a line, and Unicode tag
// characters carry ASCII the reader never sees but a model reads. Every such character is replaced
// by a visible escape (`\x1b`, `\u202e`, `\u{e0041}`) before the text reaches a terminal or a
// model; everything else (accents, CJK, right-to-left letters, emoji and their sequences) is kept.
//
// What is escaped, and why:
// - Cc: C0 controls (ESC, BEL, NUL, CR, VT, FF...), DEL and C1 (U+0080-U+009F: U+009B is a
//   one-byte CSI, U+009D an OSC on terminals that honour 8-bit controls). The newline and the tab
//   are kept in a block (the layout handles lines), escaped in a line; CRLF is read as a newline.
// - Cf, the invisible format characters: the bidi embeddings, overrides and isolates
//   (U+202A-U+202E, U+2066-U+2069, Trojan Source, CVE-2021-42574), and also the marks U+200E,
//   U+200F and U+061C, which reorder the digits and punctuation that papo's headers are made of;
//   zero-width space, word joiner, BOM, soft hyphen, invisible operators; tag characters
//   (U+E0000-U+E007F), except inside an emoji subdivision flag (U+1F3F4, 1-7 tag letters or digits,
//   U+E007F: the flags of England, Scotland, Wales).
//   ZWJ (U+200D) and ZWNJ (U+200C) are kept: emoji sequences (a family, a rainbow flag) and the
//   shaping of Persian, Arabic and Indic scripts need them, and they cannot move text.
// - Zl, Zp (U+2028, U+2029): some readers break a line there, so they could start a forged line.
// - Lone surrogates (not text at all).
// - Variation selectors and joiners in a row: one after a character is how emoji and CJK variants
//   are written; a run of them is how bytes are hidden in plain sight ("emoji smuggling"). Only
//   the first of a run is kept.
// Backslashes are not doubled: an escape only needs to be visible and inert, and bodies are full of
// code and paths whose backslashes must stay readable. The escaped form holds only printable
// characters, so escaping twice changes nothing.

const SUSPECT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Variation_Selector}]/u;
const ESCAPE_ALWAYS = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;
const SELECTOR = /^\p{Variation_Selector}$/u;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const isFlagTag = (cp: number) => (cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a);

/** The visible escape of one code point: `\n`, `\t`, `\r`, `\x1b`, `\u202e` or `\u{e0041}`. */
export function escapeCodePoint(cp: number): string {
  if (cp === 0x0a) return '\\n';
  if (cp === 0x09) return '\\t';
  if (cp === 0x0d) return '\\r';
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * Room text as it may be shown: every control, bidi or invisible format character escaped.
 * `block` (the default) keeps newlines and tabs for the layout to handle; `line` escapes them too.
 */
export function inertText(text: string, shape: 'block' | 'line' = 'block'): string {
  if (!SUSPECT.test(text)) return text;
  const block = shape === 'block';
  const cps = Array.from(text);
  let out = '';
  // The previous code point kept as it was: a selector or joiner only modifies a character.
  let prevKept = -1;
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i] as string;
    const cp = ch.codePointAt(0) as number;
    if (block && (cp === 0x0a || cp === 0x09)) {
      out += ch;
      prevKept = cp;
      continue;
    }
    if (block && cp === 0x0d && cps[i + 1] === '\n') continue; // CRLF: a line end
    if (cp === BLACK_FLAG) {
      const flag = subdivisionFlag(cps, i);
      if (flag > 0) {
        out += cps.slice(i, i + flag).join('');
        i += flag - 1;
        prevKept = CANCEL_TAG;
        continue;
      }
    }
    let asEscape: boolean;
    if (cp === ZWJ || cp === ZWNJ) {
      asEscape = !modifiable(prevKept);
    } else if (SELECTOR.test(ch)) {
      asEscape = !modifiable(prevKept) || SELECTOR.test(String.fromCodePoint(prevKept));
    } else {
      asEscape = ESCAPE_ALWAYS.test(ch);
    }
    if (asEscape) {
      out += escapeCodePoint(cp);
      prevKept = -1;
    } else {
      out += ch;
      prevKept = cp;
    }
  }
  return out;
}

/** Whether a joiner or selector may follow this kept code point (-1: none, or an escape). */
function modifiable(prev: number): boolean {
  return prev !== -1 && prev !== ZWJ && prev !== ZWNJ && prev !== 0x0a && prev !== 0x09;
}

/** Code points of the subdivision flag starting at `i` (U+1F3F4, 1-7 tags, U+E007F), else 0. */
function subdivisionFlag(cps: readonly string[], i: number): number {
  let j = i + 1;
  while (j < cps.length && j - i <= 7 && isFlagTag(cps[j]?.codePointAt(0) ?? 0)) j++;
  if (j === i + 1 || cps[j]?.codePointAt(0) !== CANCEL_TAG) return 0;
  return j - i + 1;
}

/** The indentation of every line of room text after the first: only headers start at column 0. */
export const CONTINUATION_INDENT = '  ';

/**
 * Indents every line after the first by CONTINUATION_INDENT, so that a line of a body can never
 * pass for a header or for another member's line (those always start at column 0).
 */
export function indentFollowingLines(text: string): string {
  return text.includes('\n') ? text.replaceAll('\n', `\n${CONTINUATION_INDENT}`) : text;
}
