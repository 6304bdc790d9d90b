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

// Everything that may need an escape (in the order tried at each position): a subdivision flag,
// kept whole; CRLF; any control, format, separator or surrogate code point, or variation selector.
const CANDIDATES =
  /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}|\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Variation_Selector}]/gu;
/** Whether a text needs any work at all (most do not): as CANDIDATES, newline and tab aside. */
const SUSPECT_BLOCK = /[^\n\t\P{Cc}]|[\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Variation_Selector}]/u;
const SUSPECT_LINE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Variation_Selector}]/u;
const SELECTOR = /^\p{Variation_Selector}$/u;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
/** Stands for a code point kept as it was that is none of the special ones. */
const ORDINARY = 0x20;
/** Stands for the start of the text, or a code point shown as an escape. */
const NOTHING = -1;

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
  const block = shape === 'block';
  if (!(block ? SUSPECT_BLOCK : SUSPECT_LINE).test(text)) return text;
  // What came just before a match, for selectors and joiners: the previous match's outcome when
  // it touches this one, else an ordinary character (or the start of the text).
  let lastEnd = 0;
  let last = NOTHING;
  return text.replace(CANDIDATES, (m: string, offset: number) => {
    const prev = offset === lastEnd ? last : ORDINARY;
    lastEnd = offset + m.length;
    let out: string;
    if (m.length > 2) {
      out = m; // a subdivision flag
      last = ORDINARY;
    } else if (m === '\r\n') {
      out = block ? '\n' : '\\r\\n';
      last = block ? 0x0a : NOTHING;
    } else {
      const cp = m.codePointAt(0) as number;
      let keep: boolean;
      if (cp === 0x0a || cp === 0x09) keep = block;
      else if (cp === ZWJ || cp === ZWNJ) keep = modifiable(prev);
      else if (SELECTOR.test(m)) keep = modifiable(prev) && !SELECTOR.test(String.fromCodePoint(prev));
      else keep = false;
      out = keep ? m : escapeCodePoint(cp);
      last = keep ? cp : NOTHING;
    }
    return out;
  });
}

/** Whether a joiner or selector may follow what came before it (not a start, escape, line end). */
function modifiable(prev: number): boolean {
  return prev !== NOTHING && prev !== ZWJ && prev !== ZWNJ && prev !== 0x0a && prev !== 0x09;
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

/** A message's body as a tool result or a pushed text shows it: inert, every line indented. */
export function indentedBody(body: string): string {
  return `${CONTINUATION_INDENT}${indentFollowingLines(inertText(body))}`;
}
