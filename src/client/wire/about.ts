// A member's `about` (what it works on, shown by `papo status` and the `status` tool): one line of
// printable text of at most MAX_ABOUT_CHARS (ADR 0059). The sender refuses anything else with a
// clear error; a receiver cannot refuse what a hostile member sends, so it normalises it instead of
// dropping the whole hello (and with it the member): controls and newlines become visible escapes,
// and the text is cut to the cap.
import { inertText } from './inert-text.js';

/** Longest `about`, in UTF-16 code units (as JavaScript counts, and as the sender cuts). */
export const MAX_ABOUT_CHARS = 200;

/** Why an `about` was refused (one line, for `error: --about ...`). */
export function aboutProblem(about: string): string | undefined {
  if (inertText(about, 'line') !== about) {
    return 'must be one line of printable text: no newlines, tabs, control or invisible formatting characters';
  }
  if (about.length > MAX_ABOUT_CHARS)
    return `is ${about.length} characters long; the limit is ${MAX_ABOUT_CHARS}`;
  return undefined;
}

/** The sender's check: the trimmed `about`, or a RangeError naming `what` (e.g. "--about"). */
export function checkAbout(about: string, what = '--about'): string {
  const trimmed = about.trim();
  const problem = aboutProblem(trimmed);
  if (problem !== undefined) throw new RangeError(`${what} ${problem}`);
  return trimmed;
}

/**
 * Any text made into an acceptable `about`: trimmed, escaped to one printable line, and cut to
 * MAX_ABOUT_CHARS with a final "…" (never inside an escape or a surrogate pair). Idempotent.
 * Undefined when nothing is left.
 */
export function normaliseAbout(raw: string): string | undefined {
  const line = inertText(raw.trim(), 'line');
  if (line === '') return undefined;
  if (line.length <= MAX_ABOUT_CHARS) return line;
  let cut = MAX_ABOUT_CHARS - 1;
  // Back off to the start of an escape cut in two (`\u202e`, `\x1b`, `\u{e0041}`, `\n`)...
  const tail = line.slice(Math.max(0, cut - 9), cut);
  const open = tail.lastIndexOf('\\');
  if (open !== -1 && !isWholeEscape(line.slice(cut - tail.length + open), cut - (cut - tail.length + open)))
    cut = cut - tail.length + open;
  // ...and never leave half a surrogate pair.
  const last = line.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${line.slice(0, cut).trimEnd()}…`;
}

/** Whether the escape starting `text` is complete within its first `kept` characters. */
function isWholeEscape(text: string, kept: number): boolean {
  const m = /^\\(?:[ntr]|x[0-9a-f]{2}|u\{[0-9a-f]+\}|u[0-9a-f]{4})/.exec(text);
  return m === null || m[0].length <= kept;
}
